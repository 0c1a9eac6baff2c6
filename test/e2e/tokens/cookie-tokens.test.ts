// getAccessToken with the provider tokens in the sealed JWT session cookie (`session.providerTokens:
// 'in-session-cookie'`), no adapter, against a real OpenID Provider that rotates refresh tokens: an expired token is
// refreshed once and the new cookie set; concurrent callers of one instance share one refresh; with a Redis flow
// store two instances and a second tab holding the old cookie share one refresh too; without one, the second tab's
// spent refresh token is refused (what the docs say); a revoked grant shows in /session and getSession.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MissingAdapterMethods, MissingRequestContext, RefreshTokenError, UnsupportedStrategy } from '../../../src/core/errors.js';
import { redisFlowStore } from '../../../src/core/flow-store/store.js';
import type { AuthConfig } from '../../../src/core/options.js';
import { resolveConfig } from '../../../src/core/config.js';
import { getAccessToken } from '../../../src/http/integrations/access-token.js';
import { getSession } from '../../../src/http/integrations/session-helpers.js';
import { decodeSync } from '../../../src/session/jwt.js';
import { testAuth } from '../../support/auth-app.js';
import { cookieTokenTestbed, type CookieTokenTestbed } from './cookie-harness.js';

const REDIS = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
// One key prefix per run: parallel runs on the shared Redis never meet.
const prefix = `authchart-test:cookie-tokens:${randomUUID()}:`;

let t: CookieTokenTestbed;
let redis: Redis;
let redis2: Redis;
beforeAll(async () => {
  t = await cookieTokenTestbed();
  redis = new Redis(REDIS, { maxRetriesPerRequest: 1 });
  redis2 = new Redis(REDIS, { maxRetriesPerRequest: 1 });
});
afterAll(async () => {
  const keys = (await redis?.keys(`${prefix}*`)) ?? [];
  if (keys.length > 0) await redis.del(...keys);
  redis?.disconnect();
  redis2?.disconnect();
  await t?.close();
});

/** getAccessToken in the fetch form: the token and the Set-Cookie lines it asks the response to carry. */
async function call(config: AuthConfig, cookie: string, options: Parameters<typeof getAccessToken>[3] = {}) {
  const headers = new Headers();
  const token = await getAccessToken(t.request(cookie), config, 'oidc', { ...options, cookies: headers });
  return { token, setCookie: headers.getSetCookie() };
}

describe("getAccessToken with session.providerTokens: 'in-session-cookie' (no adapter)", () => {
  it('the sign-in seals the tokens into the session token; /session shows none of them', async () => {
    const config = t.config({ callbacks: { session: ({ session, token }) => ({ ...session, token }) } });
    const cookie = await t.signIn(config, 'alice');
    const tokens = t.claims(cookie).provider_tokens!;
    expect(tokens).toMatchObject({ provider: 'oidc', access_token: expect.any(String), refresh_token: expect.any(String), expires_at: expect.any(Number) });
    // A session callback that hands the whole token to the browser still hands no provider token.
    const body = await (await testAuth(config).handle(new Request('http://localhost:3000/auth/session', { headers: { cookie } }))).text();
    expect(body).toContain('"token"');
    expect(body).not.toContain(String(tokens.access_token));
    expect(body).not.toContain(String(tokens.refresh_token));
    expect(body).not.toContain('provider_tokens');
  });

  it('an expired token: one refresh, the new cookie set, and the next call uses it without refreshing', async () => {
    const config = t.config();
    const signedIn = await t.signIn(config, 'alice');
    const old = t.claims(signedIn).provider_tokens!;
    const cookie = t.expire(signedIn);
    const start = { ...t.grants };
    const first = await call(config, cookie);
    expect(t.grants).toEqual({ ok: start.ok + 1, refused: start.refused });
    expect(first.token).not.toBe(old.access_token);
    expect(await t.active(first.token!)).toBe(true);
    const next = t.after(cookie, first.setCookie);
    const kept = t.claims(next).provider_tokens!;
    expect(kept.access_token).toBe(first.token);
    expect(kept.refresh_token).not.toBe(old.refresh_token);
    expect(Number(kept.expires_at)).toBeGreaterThan(Date.now() / 1000 + 60);
    // The user's other claims are kept as they were.
    expect(t.claims(next).sub).toBe(t.claims(signedIn).sub);
    const again = await call(config, next);
    expect(again).toEqual({ token: first.token, setCookie: [] });
    expect(t.grants.ok).toBe(start.ok + 1);
  });

  it('a token that is fresh is answered as it is: no request, no cookie written', async () => {
    const config = t.config();
    const cookie = await t.signIn(config, 'bob');
    const start = { ...t.grants };
    expect(await call(config, cookie)).toEqual({ token: t.claims(cookie).provider_tokens!.access_token, setCookie: [] });
    expect(t.grants).toEqual(start);
  });

  it('opens the session token once per call, with one "sessions valid after" lookup: refreshed, fresh or refused', async () => {
    const counts = { opens: 0, lookups: 0 };
    const config = t.config({
      jwt: { decode: (params) => ((counts.opens += 1), decodeSync(params)) },
      session: { strategy: 'jwt', providerTokens: 'in-session-cookie', validAfter: { get: async () => ((counts.lookups += 1), null), set: async () => {} } },
    });
    const once = async (cookie: string) => {
      counts.opens = counts.lookups = 0;
      const result = await call(config, cookie).catch((err: unknown) => err);
      expect(counts).toEqual({ opens: 1, lookups: 1 });
      return result;
    };
    const signedIn = await t.signIn(config, 'alice');
    // A refresh that rewrites the cookie: the rewrite builds on the token the gate opened.
    const refreshed = (await once(t.expire(signedIn))) as Awaited<ReturnType<typeof call>>;
    expect(refreshed.setCookie).toHaveLength(1);
    const next = t.after(t.expire(signedIn), refreshed.setCookie);
    expect(t.claims(next)).toMatchObject({ sub: t.claims(signedIn).sub, session_iat: t.claims(signedIn).session_iat, provider_tokens: { access_token: refreshed.token } });
    expect(await once(next)).toEqual({ token: refreshed.token, setCookie: [] });
    // A refused refresh marks the cookie, again without opening it a second time.
    expect(await t.revoke(String(t.claims(next).provider_tokens!.refresh_token))).toBe(200);
    expect(await once(t.expire(next))).toBeInstanceOf(RefreshTokenError);
  });

  it('10 concurrent calls in one instance with the token expired make one refresh request', async () => {
    const config = t.config();
    const cookie = t.expire(await t.signIn(config, 'alice'));
    const start = { ...t.grants };
    const results = await Promise.all(Array.from({ length: 10 }, () => call(config, cookie)));
    expect(t.grants).toEqual({ ok: start.ok + 1, refused: start.refused });
    expect(new Set(results.map((r) => r.token)).size).toBe(1);
    // Every caller's response carries the new cookie (each answers its own request).
    for (const r of results) expect(t.claims(t.after(cookie, r.setCookie)).provider_tokens!.access_token).toBe(results[0]!.token);
  });

  it('a Redis flow store: two instances and a second tab with the old cookie make exactly one refresh request', async () => {
    const a = t.config({ flowStore: redisFlowStore(redis, { prefix }) });
    const b = t.config({ flowStore: redisFlowStore(redis2, { prefix }) });
    const cookie = t.expire(await t.signIn(a, 'alice'));
    const start = { ...t.grants };
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => call(i % 2 ? b : a, cookie)));
    expect(t.grants).toEqual({ ok: start.ok + 1, refused: start.refused });
    const token = results[0]!.token!;
    expect(new Set(results.map((r) => r.token))).toEqual(new Set([token]));
    // Tab 1 took the new cookie. Tab 2 still holds the old one, and asks the other instance a moment later: it is
    // handed the winner's pair and its cookie updated, and the spent refresh token is not sent again.
    const tab2 = await call(b, cookie);
    expect(tab2.token).toBe(token);
    expect(t.claims(t.after(cookie, tab2.setCookie)).provider_tokens!.refresh_token).toBe(t.claims(t.after(cookie, results[0]!.setCookie)).provider_tokens!.refresh_token);
    expect(t.grants).toEqual({ ok: start.ok + 1, refused: start.refused });
    expect(await t.active(token)).toBe(true);
    // What Redis keeps is sealed: neither token is readable there.
    const values = await Promise.all((await redis.keys(`${prefix}*`)).map((k) => redis.get(k)));
    expect(values.join('\n')).not.toContain(token);
  });

  it('without a shared store, a second tab (or instance) holding the old cookie spends a rotated token: refused, its cookie marked', async () => {
    const a = t.config();
    const b = t.config(); // another instance: its own memory
    const cookie = t.expire(await t.signIn(a, 'bob'));
    const first = await call(a, cookie);
    const start = { ...t.grants };
    await expect(call(b, cookie)).rejects.toBeInstanceOf(RefreshTokenError);
    expect(t.grants).toEqual({ ok: start.ok, refused: start.refused + 1 });
    // oidc-provider takes the reuse as theft and ends the grant: the winner's new token is revoked too.
    expect(await t.active(first.token!)).toBe(false);
  });

  it('a revoked grant: RefreshTokenError, shown by /session and getSession, and nothing is sent again', async () => {
    const config = t.config();
    const signedIn = await t.signIn(config, 'bob');
    expect(await t.revoke(String(t.claims(signedIn).provider_tokens!.refresh_token))).toBe(200);
    const cookie = t.expire(signedIn);
    const start = { ...t.grants };
    const headers = new Headers();
    await expect(getAccessToken(t.request(cookie), config, 'oidc', { cookies: headers })).rejects.toBeInstanceOf(RefreshTokenError);
    expect(t.grants).toEqual({ ok: start.ok, refused: start.refused + 1 });
    const marked = t.after(cookie, headers.getSetCookie());
    expect(t.claims(marked).provider_tokens).toEqual({ provider: 'oidc', error: 'RefreshTokenError' });
    const session = (await (await testAuth(config).handle(new Request('http://localhost:3000/auth/session', { headers: { cookie: marked } }))).json()) as { error?: string; user?: unknown };
    expect(session.error).toBe('RefreshTokenError');
    expect(session.user).toBeTruthy();
    expect((await getSession(t.request(marked), config))?.error).toBe('RefreshTokenError');
    // authchart/client, as a browser holding the marked cookie runs it against the app.
    const client = await import('../../../src/client/index.js');
    const app = testAuth(config);
    const realFetch = globalThis.fetch;
    globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) =>
      app.handle(new Request(new URL(String(input), 'http://localhost:3000'), { ...init, headers: { ...(init?.headers as Record<string, string>), cookie: marked } }))) as typeof fetch;
    try {
      client.configure({ basePath: '/auth' });
      expect((await client.getSession())?.error).toBe('RefreshTokenError');
    } finally {
      globalThis.fetch = realFetch;
    }
    // Asked again with the marked cookie: the same error, no request.
    await expect(call(config, marked)).rejects.toBeInstanceOf(RefreshTokenError);
    expect(t.grants.refused).toBe(start.refused + 1);
  });

  it('the fetch form without somewhere to write the cookie is refused before anything runs', async () => {
    const config = t.config();
    const cookie = await t.signIn(config, 'bob');
    await expect(getAccessToken(t.request(cookie), config, 'oidc')).rejects.toBeInstanceOf(MissingRequestContext);
  });

  it('without the opt-in the cookie holds no provider tokens, and getAccessToken asks for an adapter', async () => {
    const config = t.config({ session: { strategy: 'jwt' } });
    const cookie = await t.signIn(config, 'alice');
    expect(t.claims(cookie).provider_tokens).toBeUndefined();
    await expect(getAccessToken(t.request(cookie), config, 'oidc')).rejects.toBeInstanceOf(MissingAdapterMethods);
  });

  it('the opt-in is refused with database sessions, and any other value', () => {
    const base = t.config();
    expect(() => resolveConfig({ ...base, session: { strategy: 'database', providerTokens: 'in-session-cookie' }, adapter: {} })).toThrow(UnsupportedStrategy);
    expect(() => resolveConfig({ ...base, session: { strategy: 'jwt', providerTokens: 'cookie' as never } })).toThrow(UnsupportedStrategy);
  });
});
