// srvx's FastResponse and FastURL for Node, without srvx's Node server. The build bundles this entry alone
// (dist/srvx-node.mjs: the two classes, tree-shaken out of srvx's Node adapter) and points the dist's `srvx` imports at
// the package's `#srvx` import, which Node resolves here and every other runtime to srvx itself (package.json
// "imports"). srvx's Node adapter imports node:http, node:https and node:http2 at load: an app that only calls the
// fetch handler would pay for three servers it never starts. The Node integration's NodeRequest comes the same way,
// from a file of its own (./srvx-node-request.ts).
export { FastResponse, FastURL } from 'srvx/node';
