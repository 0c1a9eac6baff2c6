// The redirect proxy end to end: two authchart deployments on real loopback ports with different origins, a
// stable one (http://127.0.0.1:P, the only redirect URI the OP knows) and a preview one (http://localhost:Q), and
// a real OP. A sign-in started on the preview comes back through the stable deployment, which forwards the answer
// to the preview, where the flow cookie is: the session is the preview's.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServerAuth } from '../../src/http/integrations/node.js';
import type { AnyProvider } from '../../src/core/provider.js';
import { OIDC } from '../../src/providers/oauth.js';
import { recordingLogger, TEST_SECRET, type RecordingLogger } from '../support/auth-app.js';
import { createClient, type TestClient } from '../support/client.js';
import { closeHttpServer, listenLoopback } from './peers/net.js';
import { startOidcProvider, type OidcProviderHarness } from './peers/oidc.js';

interface Deployment {
  origin: string;
  server: Server;
  logger: RecordingLogger;
  /** Serves authchart with this configuration from now on. */
  mount(config: Parameters<typeof ServerAuth>[0]): void;
}

let op: OidcProviderHarness;
let stable: Deployment;
let preview: Deployment;
let providerOf: () => AnyProvider;

/** A server on 127.0.0.1, opened as `http://{host}:PORT`; authchart under /auth once mounted. */
async function listen(host: string): Promise<Deployment> {
  let handler: ReturnType<typeof ServerAuth> | undefined;
  const server = createServer((req, res) => {
    if (handler && req.url?.startsWith('/auth')) void handler(req, res);
    else res.writeHead(200, { 'content-type': 'text/plain' }).end('app page');
  });
  const origin = `http://${host}:${await listenLoopback(server)}`;
  return { origin, server, logger: recordingLogger(), mount: (config) => void (handler = ServerAuth(config)) };
}

beforeAll(async () => {
  [stable, preview] = await Promise.all([listen('127.0.0.1'), listen('localhost')]);
  // The OP is told only the stable deployment's callback, as with a real provider and preview deployments.
  op = await startOidcProvider({ redirectUris: [`${stable.origin}/auth/callback/oidc`] });
  const provider = () => OIDC({ id: 'oidc', name: 'OP', issuer: op.issuer, clientId: op.clientId, clientSecret: op.clientSecret, checks: ['pkce', 'nonce'] });
  // Both deployments share the secret and name the stable one as the proxy. The preview knows its own host by
  // configuration (a trustHost list); the stable one forwards to the preview's origin only.
  const shared = { secret: TEST_SECRET, redirectProxyUrl: `${stable.origin}/auth` };
  stable.mount({ ...shared, trustHost: true, redirectProxyOrigins: [preview.origin], logger: stable.logger, providers: [provider()] });
  preview.mount({ ...shared, trustHost: [new URL(preview.origin).host], logger: preview.logger, providers: [provider()] });
  providerOf = provider;
}, 60_000);

afterAll(async () => {
  await op?.stop();
  if (stable) await closeHttpServer(stable.server);
  if (preview) await closeHttpServer(preview.server);
});

async function startAt(client: TestClient, origin: string) {
  const { csrfToken } = (await (await client.get(`${origin}/auth/csrf`)).json()) as { csrfToken: string };
  const res = await client.post(`${origin}/auth/signin/oidc`, { csrfToken, callbackUrl: `${origin}/dashboard` });
  expect(res.status).toBe(302);
  return res.location!;
}

async function sessionAt(client: TestClient, origin: string): Promise<{ user?: { email?: string } } | null> {
  return (await (await client.get(`${origin}/auth/session`)).json()) as { user?: { email?: string } } | null;
}

describe('redirect proxy', () => {
  it('signs in on the preview through the stable deployment, which forwards the answer to the preview', async () => {
    const client = createClient({ baseUrl: preview.origin });
    const authorization = await startAt(client, preview.origin);
    expect(authorization.searchParams.get('redirect_uri')).toBe(`${stable.origin}/auth/callback/oidc`);
    // The state is sealed (a JWE): it names the preview, and only the shared secret opens it.
    const state = authorization.searchParams.get('state')!;
    expect(state.split('.')).toHaveLength(5);
    expect(state).not.toContain('localhost');

    const nav = await op.login(authorization, 'alice');
    expect(nav.url.startsWith(`${stable.origin}/auth/callback/oidc?`)).toBe(true);
    const atStable = await client.submit(nav);
    expect(atStable.status).toBe(302);
    const forwarded = atStable.location!;
    expect(forwarded.origin + forwarded.pathname).toBe(`${preview.origin}/auth/callback/oidc`);
    // Every parameter of the provider's answer goes along unchanged.
    expect(Object.fromEntries(forwarded.searchParams)).toEqual(Object.fromEntries(new URL(nav.url).searchParams));
    // The stable deployment issues nothing: no session, no flow cookie of its own.
    expect(atStable.setCookie.filter((line) => /session-token|flow/.test(line))).toEqual([]);

    const atPreview = await client.follow(atStable);
    expect(atPreview.requestUrl.href).toBe(`${preview.origin}/dashboard`);
    expect(preview.logger.errors.map((e) => e.message)).toEqual([]);
    expect((await sessionAt(client, preview.origin))?.user?.email).toBe('alice@example.test');
    expect(await sessionAt(client, stable.origin)).toBeNull();
    expect(stable.logger.errors).toEqual([]);
  });

  it('signs in on the stable deployment itself without forwarding (a plain state)', async () => {
    const client = createClient({ baseUrl: stable.origin });
    const authorization = await startAt(client, stable.origin);
    expect(authorization.searchParams.get('redirect_uri')).toBe(`${stable.origin}/auth/callback/oidc`);
    expect(authorization.searchParams.get('state')!.split('.')).toHaveLength(1);
    const nav = await op.login(authorization, 'bob');
    const done = await client.follow(await client.submit(nav));
    expect(done.requestUrl.href).toBe(`${stable.origin}/dashboard`);
    expect((await sessionAt(client, stable.origin))?.user?.email).toBe('bob@example.test');
  });

  it('a preview state replayed at the preview after its sign-in completed is refused (single-use flow)', async () => {
    const client = createClient({ baseUrl: preview.origin });
    const authorization = await startAt(client, preview.origin);
    const nav = await op.login(authorization, 'alice');
    const forwarded = (await client.submit(nav)).location!;
    await client.follow(await client.get(forwarded));
    const again = await client.get(forwarded);
    expect(again.status).toBe(302);
    expect(again.location?.searchParams.get('error')).toBe('Configuration');
    expect(preview.logger.errorTypes().at(-1)).toBe('InvalidCheck');
  });
});

describe('redirect proxy: a forged X-Forwarded-Host at the preview (issue 25, hole 4)', () => {
  const ATTACKER_HOST = 'attacker.test';

  it('a preview on `trustHost: true` without AUTH_URL starts no proxied sign-in: nothing names the forged host', async () => {
    const loose = await listen('localhost');
    try {
      loose.mount({ secret: TEST_SECRET, trustHost: true, redirectProxyUrl: `${stable.origin}/auth`, logger: loose.logger, providers: [providerOf()] });
      const client = createClient({ baseUrl: loose.origin });
      const forged = { 'x-forwarded-host': ATTACKER_HOST };
      const { csrfToken } = (await (await client.get(`${loose.origin}/auth/csrf`, { headers: forged })).json()) as { csrfToken: string };
      const res = await client.post(`${loose.origin}/auth/signin/oidc`, { csrfToken, callbackUrl: '/dashboard' }, { headers: forged });
      expect(res.status).toBe(302);
      // Not sent to the OP: the error page instead, and the reason in the operator's log.
      expect(res.location?.origin).not.toBe(new URL(op.issuer).origin);
      expect(res.location?.searchParams.get('error')).toBe('Configuration');
      // The start of a sign-in failing is an OAuthSignInError; what it says is the operator's fix.
      expect(loose.logger.errorTypes()).toEqual(['OAuthSignInError']);
      expect(loose.logger.errors[0]!.message).toMatch(/AUTH_URL/);
    } finally {
      await closeHttpServer(loose.server);
    }
  });

  it('a preview with a trustHost list refuses the forged host outright', async () => {
    const client = createClient({ baseUrl: preview.origin });
    const res = await client.get(`${preview.origin}/auth/csrf`, { headers: { 'x-forwarded-host': ATTACKER_HOST } });
    expect(res.status).toBe(400);
  });

  it("the stable deployment does not forward a live code to an origin off its list, even in a state the secret sealed", async () => {
    // A preview that still seals a believed Host (an older release, or another app sharing the secret).
    const careless = await listen('localhost');
    try {
      careless.mount({ secret: TEST_SECRET, trustHost: [`${ATTACKER_HOST}:${new URL(careless.origin).port}`, new URL(careless.origin).host], redirectProxyUrl: `${stable.origin}/auth`, logger: careless.logger, providers: [providerOf()] });
      const client = createClient({ baseUrl: careless.origin });
      const forged = { 'x-forwarded-host': `${ATTACKER_HOST}:${new URL(careless.origin).port}` };
      const { csrfToken } = (await (await client.get(`${careless.origin}/auth/csrf`, { headers: forged })).json()) as { csrfToken: string };
      const start = await client.post(`${careless.origin}/auth/signin/oidc`, { csrfToken, callbackUrl: '/dashboard' }, { headers: forged });
      const authorization = start.location!;
      expect(authorization.origin).toBe(new URL(op.issuer).origin);
      const nav = await op.login(authorization, 'alice');
      const atStable = await client.submit(nav);
      expect(atStable.status).toBe(302);
      expect(atStable.location?.origin).toBe(stable.origin);
      expect(atStable.location?.href).not.toContain(ATTACKER_HOST);
      expect(atStable.location?.searchParams.get('error')).toBe('Configuration');
      expect(stable.logger.errorTypes().at(-1)).toBe('InvalidCheck');
    } finally {
      await closeHttpServer(careless.server);
    }
  });
});
