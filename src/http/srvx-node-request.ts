// srvx's NodeRequest (the lazy web Request around a Node IncomingMessage) for authchart/node, without the rest of
// srvx's Node adapter. Imported as srvx/node itself, that adapter's colour check reads NO_COLOR, TERM and
// process.stdout at module load, which Deno refuses without --allow-env. The build bundles this entry alone
// (dist/srvx-node-request.mjs, tree-shaken) from a private copy of srvx's modules (tsdown.config.ts), so it shares no
// chunk with dist/srvx-node.mjs: the root entry on Node loads neither node:stream nor this class.
export { NodeRequest } from 'srvx/node';
