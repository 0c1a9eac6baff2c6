// The demo's configuration as `npx authchart` reads it (doctor, visualize): `npx authchart doctor --config
// examples/demo/auth.config.ts`. Building it starts the demo's IdP and opens its database, as `npm start` does
// (PORT, default 3000; the IdP on PORT + 1); the CLI exits when it is done.
import { createDemoConfig } from './config.js';

export default async () => (await createDemoConfig(Number(process.env.PORT ?? 3000))).config;
