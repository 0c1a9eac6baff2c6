// Node integration: Express/Connect-style middleware, and the IncomingMessage <-> Request bridge.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AuthConfig } from '../../core/options.js';
import { AuthResponse } from '../../core/fast-response.js';
import { mediaType, parseRequestUrlOnce } from '../request.js';
import { NodeRequest as SrvxNodeRequest } from '../srvx-node-request.js';
import { instanceFor } from './instances.js';
import { leanSessionCheck } from './node-session.js';

/** A Node request as Express and Connect hand it on (their extra fields read when present). */
export type NodeRequest = IncomingMessage & { originalUrl?: string; body?: unknown; protocol?: string };

/** The Request srvx wraps around a Node request: URL and headers are read from it lazily, on first use. */
type LazyRequest = Request & { _url: URL };

/**
 * Builds a web Request from a Node request, including a body an earlier body-parser already read. A request whose
 * body is still unread becomes srvx's lazy wrapper, so a session check never copies headers or builds a URL twice.
 */
export function toWebRequest(req: NodeRequest): Request {
  const method = req.method ?? 'GET';
  if (method !== 'GET' && method !== 'HEAD' && req.readableEnded) {
    // The client's address, as srvx's wrapper would give it (`request.ip`): the throttle counts by it.
    return Object.assign(withParsedBody(req, method), { ip: req.socket?.remoteAddress });
  }
  const request = new SrvxNodeRequest({ req }) as unknown as LazyRequest;
  // Mounted under a path (Express `app.use('/auth', …)`), req.url lost the mount point; originalUrl still has it.
  // Always appended as a path: an originalUrl of `//other.host/…` must not become another host.
  const path = req.originalUrl;
  if (path !== undefined && path !== req.url) {
    const { protocol, host } = request._url;
    request._url = new URL(`${protocol}//${host}${path.startsWith('/') ? '' : '/'}${path}`);
  }
  return request;
}

/** A Request for a POST whose stream a body-parser consumed: what it parsed is re-encoded, or there is no body. */
function withParsedBody(req: NodeRequest, method: string): Request {
  const encrypted = (req.socket as { encrypted?: boolean } | undefined)?.encrypted;
  const path = req.originalUrl ?? req.url ?? '/';
  const url = new URL(`${encrypted ? 'https' : 'http'}://${req.headers.host ?? 'localhost'}${path.startsWith('/') ? '' : '/'}${path}`);
  const headers = new Headers();
  for (const [key, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) value.forEach((v) => headers.append(key, v));
    else if (value !== undefined) headers.set(key, value);
  }
  headers.delete('content-length');
  // Re-encoded only in the form its Content-Type names (the essence, as readBody judges it): a parser that turned a
  // `text/plain` body into an object must not make it reach authchart as JSON or as a form.
  const type = mediaType(headers.get('content-type'));
  if (typeof req.body === 'string' || req.body instanceof Uint8Array) return new Request(url, { method, headers, body: req.body as BodyInit });
  if (!req.body || typeof req.body !== 'object') return new Request(url, { method, headers });
  if (type === 'application/json') return new Request(url, { method, headers, body: JSON.stringify(req.body) });
  if (type === 'application/x-www-form-urlencoded') return new Request(url, { method, headers, body: new URLSearchParams(req.body as Record<string, string>).toString() });
  return new Request(url, { method, headers });
}

/** What srvx's FastResponse hands node:http: status, the headers as a flat [name, value, …] list, the body as given. */
interface NodeParts {
  status: number;
  headers: string[];
  body?: unknown;
}
type WithNodeParts = Response & { _toNodeResponse?: () => NodeParts };

function groupedHeaders(raw: string[]): Record<string, string | string[]> {
  const grouped: Record<string, string | string[]> = {};
  for (let i = 0; i < raw.length; i += 2) {
    const [name, value] = [raw[i], raw[i + 1]];
    const seen = grouped[name];
    grouped[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return grouped;
}

/**
 * Writes a web Response to a Node response, keeping every Set-Cookie line. A string body is sent as it is. One of
 * authchart's own responses goes out from the headers it was made with, as node:http's raw list: no `Headers`
 * object is built, copied or walked (the session check's answer is the common case).
 */
export async function writeWebResponse(res: ServerResponse, response: Response): Promise<void> {
  const lean = response instanceof AuthResponse ? (response as WithNodeParts)._toNodeResponse : undefined;
  if (lean && !response.bodyUsed) {
    const parts = lean.call(response);
    if (parts.body === undefined || parts.body === null || typeof parts.body === 'string' || parts.body instanceof Uint8Array) {
      // Headers a middleware set before (res.setHeader) stay unless these name them too, as with setHeader below;
      // node:http keeps only the last of a repeated name from a raw list then, so repeats (Set-Cookie) go as arrays.
      res.writeHead(parts.status, res.getHeaderNames().length === 0 ? parts.headers : groupedHeaders(parts.headers));
      res.end(parts.body ?? undefined);
      return;
    }
  }
  res.statusCode = response.status;
  response.headers.forEach((value, key) => {
    if (key !== 'set-cookie') res.setHeader(key, value);
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length) res.setHeader('set-cookie', cookies);
  const text = response instanceof AuthResponse ? response.takeText() : undefined;
  res.end(text ?? Buffer.from(await response.arrayBuffer()));
}

/**
 * Express (or any `(req, res, next)` server) middleware serving authchart's routes under basePath.
 *
 * @example
 * app.use('/auth/*', ServerAuth({ providers: [Credentials({ authorize })], trustHost: true }))
 */
export function ServerAuth(config: AuthConfig) {
  const instance = instanceFor(config, '/auth');
  // The session check answered from the Node request itself (./node-session.ts), for a static configuration.
  const lean = instance.fixed && leanSessionCheck(instance.fixed.config);
  return async (req: NodeRequest, res: ServerResponse, next?: (err?: unknown) => void): Promise<void> => {
    try {
      const answer = lean?.(req, () => parsedWebRequest(req));
      if (answer) {
        await writeWebResponse(res, await answer);
        return;
      }
    } catch (err) {
      failed(res, err, next);
      return;
    }
    let request: Request;
    let path: string;
    try {
      request = toWebRequest(req);
      path = parseRequestUrlOnce(request).pathname;
    } catch {
      // A Host header no URL can hold: no route, authchart's or the app's, can serve this request.
      res.statusCode = 400;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ error: 'UntrustedHost', message: 'Bad request.' }));
      return;
    }
    try {
      const { config: resolved } = await instance.resolve(request);
      if (path !== resolved.basePath && !path.startsWith(`${resolved.basePath}/`)) {
        next?.();
        return;
      }
      await writeWebResponse(res, await instance.handle(request));
    } catch (err) {
      failed(res, err, next);
    }
  };
}

/** A failure past every route's own handling: the app's error handler, else a bare 500. */
function failed(res: ServerResponse, err: unknown, next: ((err?: unknown) => void) | undefined): void {
  if (next) next(err);
  else {
    res.statusCode = 500;
    res.end();
  }
}

/** {@link toWebRequest} with its URL parsed once, as the middleware makes it for every request it serves. */
function parsedWebRequest(req: NodeRequest): Request {
  const request = toWebRequest(req);
  parseRequestUrlOnce(request);
  return request;
}
