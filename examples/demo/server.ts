// What `npm start` runs: the demo app (app.ts) on PORT (default 3000). Every provider kind works offline with zero
// configuration.
import { startDemo } from './app.js';

const port = Number(process.env.PORT ?? 3000);

async function main(): Promise<void> {
  const demo = await startDemo({ port, hostname: process.env.HOST ?? 'localhost' });
  console.log(`authchart demo on http://localhost:${port}`);
  for (const line of demo.describe()) console.log(`  ${line}`);

  const stop = async () => {
    await demo.close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
