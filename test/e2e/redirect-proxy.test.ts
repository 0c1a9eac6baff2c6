// The redirect proxy end to end: two authchart deployments on real loopback ports with different origins, a
// stable one (http://127.0.0.1:P, the only redirect URI the OP knows) and a preview one (http://localhost:Q), and
// a real OP. A sign-in started on the preview comes back through the stable deployment, which forwards the answer
// to the preview, where the flow cookie is: the session is the preview's.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServerAuth } from '../../src/http/integrations/node.js';
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
  // Both deployments share the secret and name the stable one as the proxy.
  const shared = { secret: TEST_SECRET, trustHost: true, redirectProxyUrl: `${stable.origin}/auth` };
  stable.mount({ ...shared, logger: stable.logger, providers: [provider()] });
  preview.mount({ ...shared, logger: preview.logger, providers: [provider()] });
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
