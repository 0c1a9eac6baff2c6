// Bun: serves the app on the port given, with the options as JSON in argv.
import { createApp, type AppOptions } from './app.js';

// Bun's global, as far as this file uses it (the repository type-checks without bun-types).
declare const Bun: { serve(options: { hostname: string; port: number; fetch: (request: Request) => Promise<Response> }): { port: number } };

const [port, json] = process.argv.slice(2);
const server = Bun.serve({ hostname: '127.0.0.1', port: Number(port), fetch: createApp(JSON.parse(json) as AppOptions) });
console.log(`listening ${server.port}`);
