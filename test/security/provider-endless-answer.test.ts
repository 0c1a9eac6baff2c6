// A provider (or whoever answers on its token endpoint: a hijacked host, a hostile redirect of its DNS) that streams
// an answer without end. authchart stops reading at PROVIDER_RESPONSE_LIMIT and fails the sign-in with a typed
// error at once: it neither buffers the stream until memory runs out nor holds the request open until the timeout.
import { createServer, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OAuth } from '../../src/providers/oauth.js';
import { PROVIDER_RESPONSE_LIMIT } from '../../src/providers/provider-http.js';
import { testAuth } from '../support/auth-app.js';
import { closeHttpServer, listenLoopback } from '../e2e/peers/net.js';
import { expectFailure, lastError } from '../e2e/oauth/harness.js';

let sent = 0;
const streams = new Set<ServerResponse>();
const hostile = createServer((req, res) => {
  req.resume();
  if (!req.url?.startsWith('/token')) return void res.writeHead(404).end();
  streams.add(res);
  res.on('close', () => streams.delete(res));
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write('{"access_token":"');
  const chunk = Buffer.alloc(64 * 1024, 'a');
  const pump = () => {
    while (!res.destroyed) {
      sent += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
  };
  pump();
});
let base = '';
beforeAll(async () => {
  base = `http://127.0.0.1:${await listenLoopback(hostile)}`;
});
afterAll(async () => {
  for (const res of streams) res.destroy();
  await closeHttpServer(hostile);
});

describe('a token endpoint that answers without end', () => {
  it('fails the sign-in with OAuthCallbackError well before the request timeout, having read at most the limit', async () => {
    const t = testAuth({
      providers: [OAuth({ id: 'endless', name: 'Endless', clientId: 'app', clientSecret: 'secret', authorization: `${base}/authorize`, token: `${base}/token`, userinfo: `${base}/me`, checks: ['state'] })],
    });
    const start = await t.client.post('/auth/signin/endless', { csrfToken: await t.csrfToken(), callbackUrl: 'http://localhost:3000/' });
    expect(start.status).toBe(302);
    const state = start.location!.searchParams.get('state')!;
    const heapBefore = process.memoryUsage().heapUsed;
    const started = performance.now();
    const callback = await t.client.get(`/auth/callback/endless?code=c&state=${state}`);
    const took = performance.now() - started;
    expectFailure(t, callback, 'OAuthCallbackError');
    expect(lastError(t).message).toMatch(/larger than/);
    // The flow's own timeout for a provider request is 10 s: a hang until then would mean the limit did not apply.
    expect(took).toBeLessThan(5000);
    expect(sent).toBeGreaterThan(PROVIDER_RESPONSE_LIMIT / 2);
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(64 * 1024 * 1024);
  });
});
