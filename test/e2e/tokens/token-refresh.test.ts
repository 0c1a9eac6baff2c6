// getAccessToken against a real OpenID Provider that rotates refresh tokens, with two app instances on one
// PostgreSQL database: an expired token is refreshed exactly once however many callers ask at once, a refresh
// token that comes back after rotation is handled, a revoked grant shows as RefreshTokenError in the session,
// and tokens without an expiry are never refreshed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountNotLinked, RefreshTokenError } from '../../../src/core/errors.js';
import { getAccessToken } from '../../../src/http/integrations/access-token.js';

import { tokenTestbed, type TokenTestbed } from './harness.js';

let t: TokenTestbed;
beforeAll(async () => {
  t = await tokenTestbed({ features: { revocation: { enabled: true } } });
});
afterAll(async () => {
  await t?.close();
});

type Row = { access_token: string; refresh_token: string; expires_at: string | null };
const stored = async (who: string) => (await t.sql<Row>(`SELECT access_token, refresh_token, expires_at FROM accounts WHERE provider_account_id = $1`, [who]))[0]!;

/** Whether the OP still accepts an access token (its introspection endpoint, as a resource server asks). */
async function active(token: string): Promise<boolean> {
  const res = await fetch(`${t.op.issuer}/me`, { headers: { authorization: `Bearer ${token}` } });
  return res.status === 200;
}

describe('getAccessToken with database sessions on PostgreSQL, two instances', () => {
  it('20 concurrent calls over two instances with the token expired make exactly one refresh request', async () => {
    const cookie = await t.signIn('alice');
    const before = await stored('alice');
    expect(before.refresh_token).toBeTruthy();
    await t.expire('alice');
    const start = { ...t.grants };
    const tokens = await Promise.all(Array.from({ length: 20 }, (_, i) => getAccessToken(t.request(cookie), t.configs[i % 2]!, 'oidc')));
    expect(t.grants.ok - start.ok).toBe(1);
    expect(t.grants.refused - start.refused).toBe(0);
    const after = await stored('alice');
    expect(new Set(tokens)).toEqual(new Set([after.access_token]));
    expect(after.access_token).not.toBe(before.access_token);
    // Rotated: a new refresh token, and a new expiry in the future.
    expect(after.refresh_token).not.toBe(before.refresh_token);
    expect(Number(after.expires_at)).toBeGreaterThan(Date.now() / 1000 + 60);
    expect(await active(after.access_token)).toBe(true);
    // Fresh now: no further request.
    expect(await getAccessToken(t.request(cookie), t.configs[1], 'oidc')).toBe(after.access_token);
    expect(t.grants.ok - start.ok).toBe(1);
  });

  it('a second expiry refreshes again with the rotated refresh token (the old one is never re-sent)', async () => {
    const cookie = await t.signIn('bob');
    const first = await stored('bob');
    for (let round = 0; round < 3; round += 1) {
      await t.expire('bob');
      const start = { ...t.grants };
      await Promise.all(Array.from({ length: 6 }, (_, i) => getAccessToken(t.request(cookie), t.configs[i % 2]!, 'oidc')));
      expect(t.grants).toEqual({ ok: start.ok + 1, refused: start.refused });
    }
    expect((await stored('bob')).refresh_token).not.toBe(first.refresh_token);
  });

  it('a refresh token replayed after rotation (a leaked copy) makes the provider end the grant: RefreshTokenError in the session', async () => {
    const cookie = await t.signIn('alice');
    const old = await stored('alice');
    await t.expire('alice');
    await getAccessToken(t.request(cookie), t.configs[0], 'oidc');
    // Someone sends the replaced refresh token: a rotating provider takes it as theft and revokes the grant.
    const replay = await fetch(`${t.op.issuer}/token`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${t.op.clientId}:${t.op.clientSecret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: old.refresh_token }),
    });
    expect(replay.status).toBe(400);
    expect(((await replay.json()) as { error: string }).error).toBe('invalid_grant');
    await t.expire('alice');
    const err = await getAccessToken(t.request(cookie), t.configs[1], 'oidc').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RefreshTokenError);
    const session = await t.apps[0].handle(new Request('http://localhost:3000/auth/session', { headers: { cookie } }));
    expect(((await session.json()) as { error?: string }).error).toBe('RefreshTokenError');
  });

  it('a grant revoked at the provider shows as RefreshTokenError in the session; signing in again clears it', async () => {
    const cookie = await t.signIn('bob');
    const { refresh_token } = await stored('bob');
    expect(await t.revoke(refresh_token)).toBe(200);
    await t.expire('bob');
    const start = { ...t.grants };
    const results = await Promise.allSettled(Array.from({ length: 4 }, (_, i) => getAccessToken(t.request(cookie), t.configs[i % 2]!, 'oidc')));
    for (const r of results) expect(r.status === 'rejected' && r.reason instanceof RefreshTokenError).toBe(true);
    // One caller sent the refused request; the others read its outcome.
    expect(t.grants.refused - start.refused).toBe(1);
    const session = await t.apps[1].handle(new Request('http://localhost:3000/auth/session', { headers: { cookie } }));
    const body = (await session.json()) as { error?: string; user?: unknown };
    expect(body.error).toBe('RefreshTokenError');
    expect(body.user).toBeTruthy();
    // Signing in again: a new session without the mark, and the new tokens stored (the refused ones replaced).
    const again = await t.signIn('bob');
    const fresh = await t.apps[0].handle(new Request('http://localhost:3000/auth/session', { headers: { cookie: again } }));
    expect(((await fresh.json()) as { error?: string }).error).toBeUndefined();
    expect((await stored('bob')).refresh_token).not.toBe(refresh_token);
    await t.expire('bob');
    const before = t.grants.ok;
    expect(await getAccessToken(t.request(again), t.configs[1], 'oidc')).toBe((await stored('bob')).access_token);
    expect(t.grants.ok).toBe(before + 1);
  });

  it('a token without an expiry (a GitHub OAuth app) is never refreshed', async () => {
    const cookie = await t.signIn('alice');
    await t.sql(`UPDATE accounts SET expires_at = NULL WHERE provider_account_id = 'alice'`);
    const start = { ...t.grants };
    const token = await getAccessToken(t.request(cookie), t.configs[0], 'oidc');
    expect(token).toBe((await stored('alice')).access_token);
    expect(t.grants).toEqual(start);
  });

  it('nobody signed in: null; an unknown provider and a user without that account: typed errors', async () => {
    expect(await getAccessToken(t.request(''), t.configs[0], 'oidc')).toBeNull();
    await expect(getAccessToken(t.request(''), t.configs[0], 'nope')).rejects.toMatchObject({ type: 'InvalidProvider' });
    const cookie = await t.signIn('alice');
    await t.sql(`UPDATE accounts SET provider = 'elsewhere' WHERE provider_account_id = 'alice'`);
    await expect(getAccessToken(t.request(cookie), t.configs[0], 'oidc')).rejects.toBeInstanceOf(AccountNotLinked);
    await t.sql(`UPDATE accounts SET provider = 'oidc' WHERE provider_account_id = 'alice'`);
    // An adapter without the token-refresh methods (an Auth.js adapter): a typed error naming them.
    const { getUserAccount: _g, claimTokenRefresh: _c, readTokenRefresh: _r, finishTokenRefresh: _f, ...plain } = t.rawAdapters[0];
    await expect(getAccessToken(t.request(cookie), { ...t.configs[0], adapter: plain }, 'oidc')).rejects.toMatchObject({ type: 'MissingAdapterMethods' });
  });
});

describe('getAccessToken in each request form, and the session error in authchart/client', () => {
  it('an h3 event, a Node request (Express) and a web Request each get the refreshed token', async () => {
    const { H3 } = await import('h3');
    const { createServer } = await import('node:http');
    const cookie = await t.signIn('alice');
    await t.expire('alice');
    const start = { ...t.grants };
    // h3 / Nitro: the event.
    const app = new H3().get('/api/token', async (event) => ({ token: await getAccessToken(event, t.configs[0], 'oidc') }));
    const viaH3 = (await (await app.fetch(new Request('http://localhost:3000/api/token', { headers: { cookie } }))).json()) as { token: string };
    // Node / Express: the IncomingMessage.
    const server = createServer((req, res) => {
      void getAccessToken(req, t.configs[1], 'oidc').then((token) => res.end(JSON.stringify({ token })));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const viaNode = (await (await fetch(`http://127.0.0.1:${port}/api/token`, { headers: { cookie } })).json()) as { token: string };
    await new Promise((resolve) => server.close(resolve));
    // A fetch handler: the Request.
    const viaFetch = await getAccessToken(t.request(cookie), t.configs[0], 'oidc');
    const { access_token } = await stored('alice');
    expect([viaH3.token, viaNode.token, viaFetch]).toEqual([access_token, access_token, access_token]);
    expect(t.grants.ok - start.ok).toBe(1);
    expect(await active(access_token)).toBe(true);
  });

  it('session.error reaches authchart/client', async () => {
    const client = await import('../../../src/client/index.js');
    const cookie = await t.signIn('bob');
    const { refresh_token } = await stored('bob');
    await fetch(`${t.op.issuer}/token/revocation`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`${t.op.clientId}:${t.op.clientSecret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: refresh_token }),
    });
    await t.expire('bob');
    const realFetch = globalThis.fetch;
    // The browser: same-origin requests with the session cookie, answered by the app.
    globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) =>
      t.apps[0].handle(new Request(new URL(String(input), 'http://localhost:3000'), { ...init, headers: { ...(init?.headers as Record<string, string>), cookie } }))) as typeof fetch;
    try {
      client.configure({ basePath: '/auth' });
      expect((await client.getSession())?.error).toBeUndefined();
      globalThis.fetch = realFetch;
      await expect(getAccessToken(t.request(cookie), t.configs[0], 'oidc')).rejects.toBeInstanceOf(RefreshTokenError);
      globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) =>
        t.apps[0].handle(new Request(new URL(String(input), 'http://localhost:3000'), { ...init, headers: { ...(init?.headers as Record<string, string>), cookie } }))) as typeof fetch;
      expect((await client.getSession())?.error).toBe('RefreshTokenError');
    } finally {
      globalThis.fetch = realFetch;
    }
  });
});

describe('getAccessToken with JWT sessions and the adapter', () => {
  let j: TokenTestbed;
  beforeAll(async () => {
    j = await tokenTestbed({ session: { strategy: 'jwt' } });
  });
  afterAll(async () => {
    await j?.close();
  });

  it('tokens in the accounts table: 10 concurrent calls over two instances with the token expired make one refresh', async () => {
    const cookie = await j.signIn('alice');
    expect(cookie).toContain('authchart.session-token=ey');
    await j.expire('alice');
    const start = { ...j.grants };
    const tokens = await Promise.all(Array.from({ length: 10 }, (_, i) => getAccessToken(j.request(cookie), j.configs[i % 2]!, 'oidc')));
    expect(j.grants).toEqual({ ok: start.ok + 1, refused: start.refused });
    expect(new Set(tokens).size).toBe(1);
  });
});
