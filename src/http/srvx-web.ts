// What the dist's `#srvx` import names on Bun (package.json "imports"): the runtime's own Response and URL, as srvx's
// generic and Cloudflare adapters give them. Bun's native Response is already what srvx's Bun adapter hands out, but
// importing that adapter also loads its server, its plugins and a colour check that reads `process.stdout` (which
// makes Bun build its stdout stream): about 12 ms of a fresh process, for a fetch handler that starts no server.
/** The Response authchart builds its responses on: Bun's native one, as srvx's Bun adapter exports it. */
export const FastResponse = Response;
/** The URL h3 parses request URLs with: the native one. */
export const FastURL = URL;
