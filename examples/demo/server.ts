// The demo `npm start` runs: an h3 app with authchart at /auth, a home page showing who is signed in,
// and a protected page. Every provider kind works offline with zero configuration.
import { H3, getCookie, serve } from 'h3';
import { createAuthHandler, createAuthMiddleware, getSession } from '../../src/index.js';
import { createDemoConfig } from './config.js';
import { homePage, protectedPage } from './pages.js';

const port = Number(process.env.PORT ?? 3000);

const html = (body: string) => new Response(body, { headers: { 'content-type': 'text/html; charset=utf-8' } });

async function main(): Promise<void> {
  const { config, services, describe } = await createDemoConfig(port);
  const app = new H3();
  app.all('/auth/**', createAuthHandler(config));
  app.use('/protected', createAuthMiddleware(config));
  app.get('/protected', async (event) => html(protectedPage(await getSession(event, config))));
  app.get('/', async (event) => html(await homePage(await getSession(event, config), services, getCookie(event, 'authchart.session-token'))));
  for (const route of services.routes) app.get(route.path, route.handler);

  const server = serve(app, { port, hostname: process.env.HOST ?? 'localhost', silent: true });
  await server.ready();
  console.log(`authchart demo on http://localhost:${port}`);
  for (const line of describe()) console.log(`  ${line}`);

  const stop = async () => {
    await server.close(true);
    await services.close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
