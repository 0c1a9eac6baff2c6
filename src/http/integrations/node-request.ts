// Node requests reach the root entry's helpers (`auth(req, res)`, `getSession(req)`, h3 v1 events) without the root
// importing node:http: a Node request is told apart by its shape, and the Node bridge (./node.ts, which pulls in
// srvx's Node adapter) loads on the first one. A worker never gets one, so never loads it.
import type { IncomingMessage, ServerResponse } from 'node:http';

type NodeBridge = typeof import('./node.js');
let loading: Promise<NodeBridge> | undefined;

/** The Node bridge, loaded on first use; a failed load is retried next time. */
export function nodeBridge(): Promise<NodeBridge> {
  loading ??= import('./node.js').catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

/** True for a Node `IncomingMessage` (or a framework's subclass of it): a readable stream with Node's request fields. */
export function isNodeRequest(input: unknown): input is IncomingMessage {
  const r = input as Partial<IncomingMessage> | null;
  return (
    typeof r === 'object' && r !== null && typeof r.headers === 'object' && r.headers !== null && !(r.headers instanceof Headers) &&
    typeof r.on === 'function' && typeof r.pipe === 'function' && typeof r.httpVersion === 'string'
  );
}

/** A web Request for a Node request (the lazy wrapper: headers and URL are read on first use). */
export async function fromNodeRequest(req: IncomingMessage): Promise<Request> {
  return (await nodeBridge()).toWebRequest(req);
}

/** Writes a web Response to a Node response. */
export async function toNodeResponse(res: ServerResponse, response: Response): Promise<void> {
  return (await nodeBridge()).writeWebResponse(res, response);
}
