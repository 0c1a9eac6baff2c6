// The provider transport on Node (src/providers/provider-http.ts) against a real node:http server on 127.0.0.1:
// what oauth4webapi sends arrives as sent, answers come back as standard Responses, nothing is followed or read
// past its limit, and an app's own fetch or undici dispatcher takes precedence.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { nodeProviderFetch, nodeTransportApplies, PROVIDER_RESPONSE_LIMIT, providerFetch } from '../../src/providers/provider-http.js';
import { closeHttpServer, listenLoopback } from '../e2e/peers/net.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}
const seen: Seen[] = [];
let routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {};
const server = createServer((req, res) => {
  let body = '';
  req.on('data', (d: Buffer) => (body += d));
  req.on('end', () => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
    const route = routes[(req.url ?? '').split('?')[0]!];
    if (route) route(req, res);
    else res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not_found"}');
  });
});
let base = '';
beforeAll(async () => {
  base = `http://127.0.0.1:${await listenLoopback(server)}`;
});
afterAll(() => closeHttpServer(server));
afterEach(() => {
  seen.length = 0;
  routes = {};
});

describe('requests over node:http', () => {
  it('sends the method, headers and form body oauth4webapi builds, and answers with a standard Response', async () => {
    routes['/token'] = (_req, res) => res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store', 'x-multi': ['a', 'b'] }).end('{"access_token":"at","token_type":"Bearer"}');
    const res = await nodeProviderFetch(`${base}/token`, {
      method: 'POST',
      headers: { accept: 'application/json', authorization: 'Basic Y2xpZW50OnNlY3JldA==', 'content-type': 'application/x-www-form-urlencoded;charset=UTF-8' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: 'c ø', redirect_uri: 'http://localhost:3000/cb' }),
      redirect: 'manual',
    });
    expect(res).toBeInstanceOf(Response);
    expect([res.status, res.ok, res.headers.get('content-type'), res.headers.get('x-multi')]).toEqual([200, true, 'application/json', 'a, b']);
    expect(res.bodyUsed).toBe(false);
    expect(await res.json()).toEqual({ access_token: 'at', token_type: 'Bearer' });
    expect(res.bodyUsed).toBe(true);
    await expect(res.text()).rejects.toThrow();
    const [req] = seen;
    expect(req).toMatchObject({ method: 'POST', url: '/token', body: 'grant_type=authorization_code&code=c+%C3%B8&redirect_uri=http%3A%2F%2Flocalhost%3A3000%2Fcb' });
    expect(req!.headers).toMatchObject({ authorization: 'Basic Y2xpZW50OnNlY3JldA==', 'content-type': 'application/x-www-form-urlencoded;charset=UTF-8', 'content-length': String(Buffer.byteLength(req!.body)) });
  });

  it('gives a body without a content type the one fetch would: form parameters as a form, text as text', async () => {
    routes['/echo'] = (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    await nodeProviderFetch(`${base}/echo`, { method: 'POST', body: new URLSearchParams({ token: 't' }) });
    await nodeProviderFetch(`${base}/echo`, { method: 'POST', body: 'plain' });
    expect(seen.map((s) => [s.body, s.headers['content-type']])).toEqual([
      ['token=t', 'application/x-www-form-urlencoded;charset=UTF-8'],
      ['plain', 'text/plain;charset=UTF-8'],
    ]);
  });

  it('reads a body that arrives in many chunks, multi-byte characters split between them', async () => {
    const text = JSON.stringify({ name: 'Zoë 東京 '.repeat(3000) });
    routes['/big'] = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const bytes = Buffer.from(text);
      for (let i = 0; i < bytes.length; i += 1001) res.write(bytes.subarray(i, i + 1001));
      res.end();
    };
    expect(await (await nodeProviderFetch(`${base}/big`)).text()).toBe(text);
  });

  it('does not follow a redirect: the 3xx comes back as it is, and its target is never asked', async () => {
    routes['/moved'] = (_req, res) => res.writeHead(302, { location: `${base}/elsewhere` }).end();
    routes['/elsewhere'] = (_req, res) => res.writeHead(200).end('{}');
    const res = await nodeProviderFetch(`${base}/moved`, { redirect: 'manual' });
    expect([res.status, res.headers.get('location')]).toEqual([302, `${base}/elsewhere`]);
    expect(seen.map((s) => s.url)).toEqual(['/moved']);
  });

  it('keeps a status line it can carry and drops a reason phrase a Response cannot hold', async () => {
    routes['/odd'] = (req, res) => {
      req.socket.write('HTTP/1.1 503 Down\x7f For Now\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}');
      res.destroy();
    };
    const odd = await nodeProviderFetch(`${base}/odd`);
    expect([odd.status, odd.statusText, await odd.text()]).toEqual([503, '', '{}']);
  });

  it('gives a null body for 204 and keeps error answers readable, clone included', async () => {
    routes['/empty'] = (_req, res) => res.writeHead(204).end();
    routes['/refused'] = (_req, res) => res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"invalid_grant"}');
    const empty = await nodeProviderFetch(`${base}/empty`);
    expect([empty.status, empty.body]).toEqual([204, null]);
    const refused = await nodeProviderFetch(`${base}/refused`);
    expect(await refused.clone().json()).toEqual({ error: 'invalid_grant' });
    expect(await refused.json()).toEqual({ error: 'invalid_grant' });
  });

  it(`stops reading an answer past ${PROVIDER_RESPONSE_LIMIT} bytes, even one that never ends`, async () => {
    let writes = 0;
    routes['/endless'] = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 'a');
      const pump = () => {
        while (!res.destroyed && res.write(chunk)) writes++;
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    };
    await expect(nodeProviderFetch(`${base}/endless`)).rejects.toThrow(RangeError);
    expect(writes * 64 * 1024).toBeLessThan(PROVIDER_RESPONSE_LIMIT * 8);
  });

  it('honours the abort signal: a provider that never answers fails at the timeout', async () => {
    routes['/silent'] = () => {};
    const started = performance.now();
    await expect(nodeProviderFetch(`${base}/silent`, { signal: AbortSignal.timeout(150) })).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(performance.now() - started).toBeLessThan(2000);
    const aborted = new AbortController();
    aborted.abort(new Error('gone'));
    await expect(nodeProviderFetch(`${base}/silent`, { signal: aborted.signal })).rejects.toThrow('gone');
  });

  it('fails with an error, not a hang, when nothing listens or the server breaks the connection', async () => {
    const closed = createServer();
    const port = await listenLoopback(closed);
    await closeHttpServer(closed);
    await expect(nodeProviderFetch(`http://127.0.0.1:${port}/`)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    routes['/reset'] = (req) => req.socket.destroy();
    await expect(nodeProviderFetch(`${base}/reset`)).rejects.toThrow();
    routes['/half'] = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"access_token":');
      setTimeout(() => res.socket?.destroy(), 20);
    };
    await expect(nodeProviderFetch(`${base}/half`)).rejects.toThrow();
  });

  it('sends a request once more when the kept-alive connection it went out on was closed, and only then', async () => {
    // A server that drops a connection when a second request arrives on it, unanswered: what a provider does when
    // its keep-alive timeout closes the connection as the request is on its way.
    const served = new Map<object, number>();
    const arrivals: string[] = [];
    const dropping = createServer((req, res) => {
      arrivals.push(req.url ?? '');
      const count = served.get(req.socket) ?? 0;
      if (count >= 1 || req.url === '/drop-fresh') return void req.socket.destroy();
      served.set(req.socket, count + 1);
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
    });
    const origin = `http://127.0.0.1:${await listenLoopback(dropping)}`;
    try {
      const form = { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'grant_type=authorization_code&code=c' };
      expect(await (await nodeProviderFetch(`${origin}/token`, form)).json()).toEqual({ ok: true });
      expect(await (await nodeProviderFetch(`${origin}/token`, form)).json()).toEqual({ ok: true });
      // The second request reached the dropped connection's server side and then a fresh one: two arrivals, one answer.
      expect(arrivals).toEqual(['/token', '/token', '/token']);
      // A fresh connection that breaks is the provider's failure: not sent again. (The idle connections are closed
      // first, and the client has seen them close, so the request cannot go out on a kept-alive one.)
      dropping.closeIdleConnections();
      await new Promise((r) => setTimeout(r, 50));
      arrivals.length = 0;
      await expect(nodeProviderFetch(`${origin}/drop-fresh`)).rejects.toThrow();
      expect(arrivals).toEqual(['/drop-fresh']);
    } finally {
      await closeHttpServer(dropping);
    }
  });

  it('refuses URLs and bodies it cannot send', async () => {
    await expect(nodeProviderFetch('file:///etc/passwd')).rejects.toThrow(TypeError);
    await expect(nodeProviderFetch(`${base}/token`, { method: 'POST', body: new Blob(['x']) })).rejects.toThrow(TypeError);
    await expect(nodeProviderFetch(base.replace('http://', 'http://user:pass@'))).rejects.toThrow(/credentials/);
    expect(seen).toEqual([]);
  });
});

describe('which transport a provider request takes', () => {
  it('is node:http on Node with the fetch and the dispatcher Node starts with', () => {
    expect(nodeTransportApplies()).toBe(true);
    expect(providerFetch()).toBe(nodeProviderFetch);
  });

  it("is the app's own fetch once it has put one in place, read at call time", async () => {
    const real = globalThis.fetch;
    const calls: string[] = [];
    globalThis.fetch = (async (input: RequestInfo | URL) => {
      calls.push(String(input));
      return new Response('{"from":"the app"}', { headers: { 'content-type': 'application/json' } });
    }) as typeof fetch;
    try {
      expect(nodeTransportApplies()).toBe(false);
      expect(await (await providerFetch()(`${base}/token`)).json()).toEqual({ from: 'the app' });
      expect(calls).toEqual([`${base}/token`]);
      expect(seen).toEqual([]);
    } finally {
      globalThis.fetch = real;
    }
    expect(nodeTransportApplies()).toBe(true);
  });

  it("holds the app's fetch to the same rules: no redirect followed, a deadline, the answer read up to the limit", async () => {
    const real = globalThis.fetch;
    const inits: RequestInit[] = [];
    globalThis.fetch = ((input: RequestInfo | URL, init: RequestInit = {}) => {
      inits.push(init);
      return real(input, init);
    }) as typeof fetch;
    routes['/moved'] = (_req, res) => res.writeHead(302, { location: `${base}/target` }).end();
    routes['/target'] = (_req, res) => res.writeHead(200).end('{}');
    routes['/declared'] = (_req, res) => res.writeHead(200, { 'content-length': String(PROVIDER_RESPONSE_LIMIT + 1) }).end();
    routes['/large'] = (_req, res) => res.writeHead(200).end('x'.repeat(PROVIDER_RESPONSE_LIMIT + 1));
    routes['/fine'] = (_req, res) => res.writeHead(201, { 'x-kept': 'yes' }).end('{"ok":"é"}');
    try {
      const fetcher = providerFetch();
      expect(fetcher).not.toBe(nodeProviderFetch);
      const moved = await fetcher(`${base}/moved`);
      expect([moved.status, moved.headers.get('location')]).toEqual([302, `${base}/target`]);
      expect(seen.map((s) => s.url)).toEqual(['/moved']);
      expect(inits[0]!.redirect).toBe('manual');
      expect(inits[0]!.signal).toBeInstanceOf(AbortSignal);
      // A caller's own choices are kept.
      const controller = new AbortController();
      await fetcher(`${base}/fine`, { signal: controller.signal, redirect: 'follow' });
      expect(inits[1]!.signal).toBe(controller.signal);
      expect(inits[1]!.redirect).toBe('follow');
      await expect(fetcher(`${base}/declared`)).rejects.toThrow(/larger than/);
      await expect(fetcher(`${base}/large`)).rejects.toThrow(/larger than/);
      const fine = await fetcher(`${base}/fine`);
      expect([fine.status, fine.headers.get('x-kept'), await fine.json()]).toEqual([201, 'yes', { ok: 'é' }]);
    } finally {
      globalThis.fetch = real;
    }
  });

  it('is fetch when Node is told to send requests through the proxy of the environment (NODE_USE_ENV_PROXY)', () => {
    process.env.NODE_USE_ENV_PROXY = '1';
    try {
      expect(nodeTransportApplies()).toBe(false);
    } finally {
      delete process.env.NODE_USE_ENV_PROXY;
    }
    expect(nodeTransportApplies()).toBe(true);
  });

  it('is fetch when the app routes it through an undici dispatcher of its own (a proxy agent)', () => {
    const key = Symbol.for('undici.globalDispatcher.1');
    const slot = globalThis as Record<symbol, unknown>;
    const before = slot[key];
    class ProxyAgent {}
    try {
      slot[key] = new ProxyAgent();
      expect(nodeTransportApplies()).toBe(false);
      class Agent {}
      slot[key] = new Agent();
      expect(nodeTransportApplies()).toBe(true);
    } finally {
      slot[key] = before;
    }
  });
});
