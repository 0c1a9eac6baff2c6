// authchart/node: what only runs on Node's own HTTP server (and Bun's and Deno's Node compatibility): `ServerAuth`
// for Express/Connect-style servers, and the bridge between Node's req/res and web Requests/Responses. The root
// entry stays free of node:http, so it loads on workers too.
export { ServerAuth, toWebRequest, writeWebResponse, type NodeRequest } from './http/integrations/node.js';
