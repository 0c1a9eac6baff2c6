// Node integration: Express/Connect-style middleware, and the IncomingMessage <-> Request bridge.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { AuthConfig } from '../../core/options.js';
import { instanceFor } from './instances.js';

type NodeRequest = IncomingMessage & { originalUrl?: string; body?: unknown; protocol?: string };

/** Builds a web Request from a Node request, including a body an earlier body-parser already read. */
export function toWebRequest(req: NodeRequest): Request {
  const encrypted = (req.socket as { encrypted?: boolean } | undefined)?.encrypted;
  const url = new URL(req.originalUrl ?? req.url ?? '/', `${encrypted ? 'https' : 'http'}://${req.headers.host ?? 'localhost'}`);
  const headers = new Headers();
  for (const [key, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) value.forEach((v) => headers.append(key, v));
    else if (value !== undefined) headers.set(key, value);
  }
  const method = req.method ?? 'GET';
  if (method === 'GET' || method === 'HEAD') return new Request(url, { method, headers });
  if (req.readableEnded && req.body !== undefined) {
    // A body-parser consumed the stream: re-encode what it parsed.
    const type = headers.get('content-type') ?? '';
    const body = typeof req.body === 'string' ? req.body : type.includes('json') ? JSON.stringify(req.body) : new URLSearchParams(req.body as Record<string, string>).toString();
    headers.delete('content-length');
    return new Request(url, { method, headers, body });
  }
  return new Request(url, { method, headers, body: Readable.toWeb(req) as ReadableStream, duplex: 'half' } as RequestInit);
}

/** Writes a web Response to a Node response, keeping every Set-Cookie line. */
export async function writeWebResponse(res: ServerResponse, response: Response): Promise<void> {
  res.statusCode = response.status;
  response.headers.forEach((value, key) => {
    if (key !== 'set-cookie') res.setHeader(key, value);
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length) res.setHeader('set-cookie', cookies);
  res.end(Buffer.from(await response.arrayBuffer()));
}

/**
 * Express (or any `(req, res, next)` server) middleware serving authchart's routes under basePath.
 *
 * @example
 * app.use('/auth/*', ServerAuth({ providers: [Credentials({ authorize })], trustHost: true }))
 */
export function ServerAuth(config: AuthConfig) {
  const instance = instanceFor(config, '/auth');
  return async (req: NodeRequest, res: ServerResponse, next?: (err?: unknown) => void): Promise<void> => {
    try {
      const request = toWebRequest(req);
      const { config: resolved } = await instance.resolve(request);
      const path = new URL(request.url).pathname;
      if (path !== resolved.basePath && !path.startsWith(`${resolved.basePath}/`)) {
        next?.();
        return;
      }
      await writeWebResponse(res, await instance.handle(request));
    } catch (err) {
      if (next) next(err);
      else {
        res.statusCode = 500;
        res.end();
      }
    }
  };
}
