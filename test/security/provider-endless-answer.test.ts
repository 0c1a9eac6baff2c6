// A provider (or whoever answers on its token endpoint: a hijacked host, a hostile redirect of its DNS) that streams
// an answer without end. authchart stops reading at PROVIDER_RESPONSE_LIMIT and fails the sign-in with a typed
// error at once: it neither buffers the stream until memory runs out nor holds the request open until the timeout.
// So it does on every way a provider request goes out: the Node transport, the global fetch (an app that put a fetch
// of its own in place, Bun, Deno, workers), and a catalogue preset's own API calls (GitHub's user and e-mails).
import { createServer, type ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import GitHub from '../../src/providers/catalogue/github.js';
import { OAuth } from '../../src/providers/oauth.js';
import { PROVIDER_RESPONSE_LIMIT } from '../../src/providers/provider-http.js';
import { testAuth } from '../support/auth-app.js';
import { closeHttpServer, listenLoopback } from '../e2e/peers/net.js';
import { expectFailure, lastError } from '../e2e/oauth/harness.js';

let sent = 0;
const streams = new Set<ServerResponse>();
const hostile = createServer((req, res) => {
  req.resume();
  // A well-formed token for the preset whose user-info API is the endless one.
  if (req.url?.startsWith('/good-token')) return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"access_token":"at","token_type":"bearer"}');
  if (!req.url?.startsWith('/token') && !req.url?.startsWith('/user')) return void res.writeHead(404).end();
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

/** Signs in with `provider` (id `endless`) up to its callback, and checks the callback failed at the limit, fast. */
async function expectStoppedAtLimit(provider: Parameters<typeof testAuth>[0]['providers'][number]): Promise<void> {
  const t = testAuth({ providers: [provider] });
  const start = await t.client.post('/auth/signin/endless', { csrfToken: await t.csrfToken(), callbackUrl: 'http://localhost:3000/' });
  expect(start.status).toBe(302);
  const state = start.location!.searchParams.get('state')!;
  sent = 0;
  const heapBefore = process.memoryUsage().heapUsed;
  const started = performance.now();
  const callback = await t.client.get(`/auth/callback/endless?code=c&state=${state}`);
  const took = performance.now() - started;
  expectFailure(t, callback, 'OAuthCallbackError');
  expect(JSON.stringify({ message: lastError(t).message, cause: String((lastError(t).cause as { message?: string } | undefined)?.message ?? lastError(t).cause) })).toMatch(/larger than/);
  // The flow's own timeout for a provider request is 10 s: a hang until then would mean the limit did not apply.
  expect(took).toBeLessThan(5000);
  expect(sent).toBeGreaterThan(PROVIDER_RESPONSE_LIMIT / 2);
  expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(64 * 1024 * 1024);
}

const endlessToken = () => OAuth({ id: 'endless', name: 'Endless', clientId: 'app', clientSecret: 'secret', authorization: `${base}/authorize`, token: `${base}/token`, userinfo: `${base}/me`, checks: ['state'] });

describe('a token endpoint that answers without end', () => {
  it('fails the sign-in with OAuthCallbackError well before the request timeout, having read at most the limit', async () => {
    await expectStoppedAtLimit(endlessToken());
  });

  it('so it does when the app has a fetch of its own in place, and the request goes through the global fetch', async () => {
    const original = globalThis.fetch;
    let calls = 0;
    globalThis.fetch = (input, init) => {
      calls++;
      return original(input, init);
    };
    try {
      await expectStoppedAtLimit(endlessToken());
    } finally {
      globalThis.fetch = original;
    }
    expect(calls).toBeGreaterThan(0);
  });
});

describe("a catalogue preset's own API call that answers without end", () => {
  it("fails the sign-in when GitHub's user API streams without end, having read at most the limit", async () => {
    await expectStoppedAtLimit(
      GitHub({ id: 'endless', clientId: 'app', clientSecret: 'secret', authorization: `${base}/authorize`, token: `${base}/good-token`, userinfo: `${base}/user` }),
    );
  });
});
