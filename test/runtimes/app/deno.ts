// Deno: serves the app on the port given, with the options as JSON in the arguments. Run without --allow-env:
// authchart must not need it.
import { createApp, type AppOptions } from './app.js';

// Deno's global, as far as this file uses it (the repository type-checks without Deno's types).
declare const Deno: {
  args: string[];
  serve(options: { hostname: string; port: number; onListen: (addr: { port: number }) => void }, handler: (request: Request) => Promise<Response>): unknown;
};

const [port, json] = Deno.args;
Deno.serve({ hostname: '127.0.0.1', port: Number(port), onListen: ({ port }) => console.log(`listening ${port}`) }, createApp(JSON.parse(json) as AppOptions));
