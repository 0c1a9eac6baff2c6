// What the dist's `#srvx` import names everywhere but Node (package.json "imports": Bun, Deno, workerd, browsers): the
// runtime's own Response and URL, as srvx's generic and Cloudflare adapters give them. Importing srvx's adapters also
// loads their server plugins and a colour check that reads the environment (NO_COLOR, TERM) and `process.stdout` at
// module load: on Deno without --allow-env that import fails (`NotCapable: Requires env access to "TERM"`), on Bun it
// builds the stdout stream (about 12 ms of a fresh process), for a fetch handler that starts no server.
/** The Response authchart builds its responses on: Bun's native one, as srvx's Bun adapter exports it. */
export const FastResponse = Response;
/** The URL h3 parses request URLs with: the native one. */
export const FastURL = URL;
