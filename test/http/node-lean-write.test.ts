// The Node integration writes authchart's own responses from the headers they were made with, as node:http's raw
// list, without building a `Headers` object; what a middleware set before is kept, and every Set-Cookie line.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthResponse } from '../../src/core/fast-response.js';
import { writeWebResponse } from '../../src/http/integrations/node.js';
import { closeHttpServer, listenLoopback } from '../e2e/peers/net.js';

let server: Server;
let origin: string;
const answers = new Map<string, () => Response>();

beforeAll(async () => {
  server = createServer((req, res) => {
    // What an app's own middleware may have set before authchart answers.
    if (req.url !== '/bare') {
      res.setHeader('x-app', 'kept');
      res.setHeader('content-type', 'text/html');
    }
    writeWebResponse(res, answers.get(req.url ?? '')!()).catch((err: unknown) => res.writeHead(599).end(String(err)));
  });
  origin = `http://127.0.0.1:${await listenLoopback(server)}`;
});
afterAll(() => closeHttpServer(server));

/** An AuthResponse whose `headers` throws when read: the lean path must never need it. */
function untouchable(body: string, headers: [string, string][]): Response {
  const response = new AuthResponse(body, { status: 200, headers });
  Object.defineProperty(response, 'headers', { get: () => { throw new Error('Headers built'); } });
  return response;
}

describe('writeWebResponse on the lean path', () => {
  it('writes status, body and every raw header without reading response.headers', async () => {
    answers.set('/lean', () => untouchable('{"user":{"name":"Ada"}}', [['content-type', 'application/json'], ['set-cookie', 'a=1; Path=/'], ['set-cookie', 'b=2; Path=/'], ['cache-control', 'private, no-store']]));
    const res = await fetch(`${origin}/lean`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ user: { name: 'Ada' } });
    expect(res.headers.getSetCookie()).toEqual(['a=1; Path=/', 'b=2; Path=/']);
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    // The response's own content-type wins over the middleware's; the middleware's other header stays.
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('x-app')).toBe('kept');
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength('{"user":{"name":"Ada"}}')));
  });

  it('with nothing set before, the raw list goes out as it is, repeats included', async () => {
    answers.set('/bare', () => untouchable('{}', [['content-type', 'application/json'], ['set-cookie', 'a=1'], ['set-cookie', 'b=2']]));
    const res = await fetch(`${origin}/bare`);
    expect(res.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('x-app')).toBeNull();
  });

  it('a response whose headers were changed after it was made goes out with the change', async () => {
    answers.set('/changed', () => {
      const response = new AuthResponse('{}', { status: 201, headers: { 'content-type': 'application/json' } });
      response.headers.append('set-cookie', 'late=1; Path=/');
      return response;
    });
    const res = await fetch(`${origin}/changed`);
    expect(res.status).toBe(201);
    expect(res.headers.getSetCookie()).toEqual(['late=1; Path=/']);
  });

  it('a plain Response goes the general way', async () => {
    answers.set('/plain', () => new Response('plain', { status: 202, headers: [['set-cookie', 'x=1'], ['set-cookie', 'y=2']] }));
    const res = await fetch(`${origin}/plain`);
    expect(res.status).toBe(202);
    expect(await res.text()).toBe('plain');
    expect(res.headers.getSetCookie()).toEqual(['x=1', 'y=2']);
  });
});
