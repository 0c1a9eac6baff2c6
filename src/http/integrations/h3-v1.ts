// h3 v1 events (Nitro 2, Nuxt 3 and 4): they carry Node's req/res where h3 v2 has a web Request, so the h3 handler
// and the session helpers recognise them by shape and go through the Node bridge. No h3 v1 code is imported.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HTTPError } from 'h3';

/** What authchart reads of an h3 v1 event: Node's request and response. */
export interface H3V1Event {
  node: { req: IncomingMessage; res: ServerResponse };
}

/**
 * Whether `input` is an h3 v1 event. An h3 v2 event on Node has `node` too (deprecated), but its `req` is a web
 * Request; a v1 event has no web Request at `req`.
 */
export function isH3V1Event(input: unknown): input is H3V1Event {
  const event = input as { node?: { req?: { headers?: unknown } }; req?: { headers?: { get?: unknown } } } | null;
  if (typeof event !== 'object' || event === null) return false;
  if (typeof event.req?.headers?.get === 'function') return false;
  return typeof event.node?.req?.headers === 'object';
}

/** Appends Set-Cookie lines to a Node response that has not sent its headers yet, keeping the ones already there. */
export function appendNodeSetCookie(res: ServerResponse, lines: readonly string[]): void {
  if (res.headersSent || lines.length === 0) return;
  const existing = res.getHeader('set-cookie');
  const before = existing === undefined ? [] : Array.isArray(existing) ? existing : [String(existing)];
  res.setHeader('set-cookie', [...before, ...lines]);
}

/**
 * An h3 HTTPError that h3 v1 also takes for one of its own (it checks the constructor's `__h3_error__` and reads
 * `statusCode`/`statusMessage`, which HTTPError has): answered with its status, not logged as an unhandled error.
 */
export class H3V1CompatibleError extends HTTPError {
  static __h3_error__ = true;
}
