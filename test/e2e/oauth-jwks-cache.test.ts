// Discovery and the JWKS against a real OpenID Provider: each fetched once per process for a provider, fetched
// again when the OP rotates its signing key, and never shared between providers of different issuers.
import { generateKeyPair, randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { OIDC } from '../../src/providers/oauth.js';
import { clearDiscoveryCache } from '../../src/providers/oauth-server.js';
import { testAuth, type TestAuth } from '../support/auth-app.js';
import { callbackOf, setsSession, signInThrough } from './oauth/harness.js';
import { startOidcProvider, type OidcProviderHarness } from './peers/oidc.js';

const SECRET = 'jwks-cache-client-secret-0123456789abc';

/** An OP and how many requests went to one of its paths (counted by the OP, whatever client sent them). */
interface CountingOp {
  op: OidcProviderHarness;
  count(path: string): number;
}

async function rsaKey(): Promise<Record<string, unknown>> {
  const { privateKey } = await promisify(generateKeyPair)('rsa', { modulusLength: 2048 });
  return { ...privateKey.export({ format: 'jwk' }), kid: `rotated-${randomUUID()}`, use: 'sig', alg: 'RS256' };
}

async function countingOp(options: { port?: number; key?: Record<string, unknown> } = {}): Promise<CountingOp> {
  const op = await startOidcProvider({
    port: options.port,
    clients: [
      {
        client_id: 'jwks-cache',
        client_secret: SECRET,
        redirect_uris: [callbackOf('oidc')],
        response_types: ['code'],
        grant_types: ['authorization_code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    ...(options.key ? { config: { jwks: { keys: [options.key] } } } : {}),
  });
  return { op, count: (path) => op.requestsTo(path) };
}

const DISCOVERY = '/.well-known/openid-configuration';
const JWKS = '/jwks';

function appFor(op: OidcProviderHarness): TestAuth {
  return testAuth({ providers: [OIDC({ id: 'oidc', name: 'OP', issuer: op.issuer, clientId: 'jwks-cache', clientSecret: SECRET, checks: ['pkce', 'state', 'nonce'] })] });
}

async function signIn(t: TestAuth, op: OidcProviderHarness, account = 'alice'): Promise<void> {
  const { callback } = await signInThrough(t, op, 'oidc', account, { client: t.newClient() });
  expect(callback.status, t.logger.errors.map((e) => e.message).join('; ')).toBe(302);
  expect(callback.location?.pathname).toBe('/dashboard');
  expect(setsSession(callback)).toBe(true);
}

let a: CountingOp;
let b: CountingOp;
beforeAll(async () => {
  clearDiscoveryCache();
  // Two OPs with keys of their own: a JWKS that leaked from one provider to the other would fail the signature.
  [a, b] = await Promise.all([countingOp(), countingOp({ key: await rsaKey() })]);
});
afterAll(async () => {
  await Promise.all([a?.op.stop(), b?.op.stop()]);
});

describe('discovery and JWKS per provider', () => {
  it('fetches discovery and the JWKS once over several sign-ins, and the JWKS does verify each ID token', async () => {
    const t = appFor(a.op);
    for (const account of ['alice', 'bob', 'alice', 'bob']) await signIn(t, a.op, account);
    expect(a.count(DISCOVERY)).toBe(1);
    expect(a.count(JWKS)).toBe(1);
    // Another config of the same issuer in the same process reuses both.
    await signIn(appFor(a.op), a.op);
    expect([a.count(DISCOVERY), a.count(JWKS)]).toEqual([1, 1]);
    expect(a.count('/token')).toBe(5);
  });

  it('keeps two configs with different issuers apart in one process', async () => {
    const ta = appFor(a.op);
    const tb = appFor(b.op);
    const before = [a.count(DISCOVERY), a.count(JWKS)];
    for (let i = 0; i < 2; i += 1) {
      await signIn(tb, b.op);
      await signIn(ta, a.op);
    }
    expect([b.count(DISCOVERY), b.count(JWKS)]).toEqual([1, 1]);
    expect([a.count(DISCOVERY), a.count(JWKS)]).toEqual(before);
  });

  it('downloads the JWKS again when the OP signs with a rotated key, then reuses the new set', async () => {
    const t = appFor(a.op);
    await signIn(t, a.op);
    const { port } = a.op;
    await a.op.stop();
    // The same issuer (same port) now signs with a key no cached set holds.
    a = await countingOp({ port, key: await rsaKey() });
    const before = [a.count(DISCOVERY), a.count(JWKS)];
    await signIn(t, a.op);
    expect([a.count(DISCOVERY) - before[0]!, a.count(JWKS) - before[1]!]).toEqual([0, 1]);
    await signIn(t, a.op, 'bob');
    await signIn(appFor(a.op), a.op);
    expect([a.count(DISCOVERY) - before[0]!, a.count(JWKS) - before[1]!]).toEqual([0, 1]);
    expect(t.logger.errors).toEqual([]);
  });

  it('reads discovery again once the document is 10 minutes old (and the JWKS with its new server object), then reuses both', async () => {
    const c = await countingOp({ key: await rsaKey() });
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    try {
      const t = appFor(c.op);
      const start = Date.now();
      const at = (ms: number) => vi.setSystemTime(start + ms);
      await signIn(t, c.op);
      at(4 * 60_000);
      await signIn(t, c.op, 'bob');
      expect([c.count(DISCOVERY), c.count(JWKS)]).toEqual([1, 1]);
      // oauth4webapi's own rule: a key set older than 5 minutes is downloaded again.
      at(10 * 60_000 - 2000);
      await signIn(t, c.op);
      expect([c.count(DISCOVERY), c.count(JWKS)]).toEqual([1, 2]);
      // Ours: the document is read again after 10 minutes, and a new server object downloads its keys anew.
      at(10 * 60_000 + 2000);
      await signIn(t, c.op);
      await signIn(t, c.op, 'bob');
      expect([c.count(DISCOVERY), c.count(JWKS)]).toEqual([2, 3]);
      expect(t.logger.errors).toEqual([]);
    } finally {
      vi.useRealTimers();
      await c.op.stop();
    }
  });
});
