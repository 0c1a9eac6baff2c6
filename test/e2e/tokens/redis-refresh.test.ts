// getAccessToken with the refresh lock in Redis (redisTokenRefresh), for an adapter without the token-refresh lock
// methods: two app instances, each with its own Redis connection, against a real OpenID Provider that rotates refresh
// tokens. An expired token is refreshed exactly once however many callers ask at once, a revoked grant is refused
// once, and a new sign-in's tokens win over what Redis kept.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Adapter } from '../../../src/core/adapter.js';
import { RefreshTokenError } from '../../../src/core/errors.js';
import type { AuthConfig } from '../../../src/core/options.js';
import { redisTokenRefresh } from '../../../src/flows/tokens/redis-refresh.js';
import { getAccessToken } from '../../../src/http/integrations/access-token.js';
import { TEST_SECRET } from '../../support/auth-app.js';
import { tokenTestbed, type TokenTestbed } from './harness.js';

const REDIS = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

let t: TokenTestbed;
let ioredis: Redis;
let nodeRedis: ReturnType<typeof createClient>;
let configs: [AuthConfig, AuthConfig];
// One key prefix per run: parallel runs on the shared Redis never meet.
const prefix = `authchart-test:tokens:${randomUUID()}:`;

/** The adapter as an app without the lock methods has it: accounts readable, no refresh lock of its own. */
function withoutLock(adapter: Adapter): Adapter {
  const { claimTokenRefresh: _c, readTokenRefresh: _r, finishTokenRefresh: _f, ...rest } = adapter as Adapter & Record<string, unknown>;
  return rest as Adapter;
}

beforeAll(async () => {
  t = await tokenTestbed({ features: { revocation: { enabled: true } } });
  ioredis = new Redis(REDIS, { maxRetriesPerRequest: 1 });
  nodeRedis = createClient({ url: REDIS });
  await nodeRedis.connect();
  configs = [
    { ...t.configs[0], adapter: redisTokenRefresh(withoutLock(t.rawAdapters[0]), ioredis, { secret: TEST_SECRET, prefix }) },
    { ...t.configs[1], adapter: redisTokenRefresh(withoutLock(t.rawAdapters[1]), nodeRedis, { secret: TEST_SECRET, prefix }) },
  ];
});
afterAll(async () => {
  const keys = await ioredis.keys(`${prefix}*`);
  if (keys.length > 0) await ioredis.del(...keys);
  ioredis?.disconnect();
  await nodeRedis?.quit();
  await t?.close();
});

type Row = { access_token: string; refresh_token: string };
const stored = async (who: string) => (await t.sql<Row>(`SELECT access_token, refresh_token FROM accounts WHERE provider_account_id = $1`, [who]))[0]!;

describe('getAccessToken with the refresh lock in Redis (ioredis and node-redis instances)', () => {
  it('20 concurrent calls over two instances with the token expired make exactly one refresh request', async () => {
    const cookie = await t.signIn('alice');
    const before = await stored('alice');
    await t.expire('alice');
    const start = { ...t.grants };
    const tokens = await Promise.all(Array.from({ length: 20 }, (_, i) => getAccessToken(t.request(cookie), configs[i % 2]!, 'oidc')));
    expect(t.grants.ok - start.ok).toBe(1);
    expect(t.grants.refused - start.refused).toBe(0);
    expect(new Set(tokens).size).toBe(1);
    expect(tokens[0]).not.toBe(before.access_token);
    // The OP accepts the new token.
    expect((await fetch(`${t.op.issuer}/me`, { headers: { authorization: `Bearer ${tokens[0]}` } })).status).toBe(200);
    // Fresh now, from Redis, on either instance: no further request.
    expect(await getAccessToken(t.request(cookie), configs[1], 'oidc')).toBe(tokens[0]);
    expect(await getAccessToken(t.request(cookie), configs[0], 'oidc')).toBe(tokens[0]);
    expect(t.grants.ok - start.ok).toBe(1);
    // The tokens Redis keeps are sealed: neither the access nor the refresh token is readable there.
    const kept = await ioredis.get(`${prefix}4:oidc:alice:state`);
    expect(kept).toContain('sealed.');
    expect(kept).not.toContain(String(tokens[0]));
  });

  it('a grant revoked at the provider: every caller gets RefreshTokenError, and only one refused request is sent', async () => {
    const cookie = await t.signIn('bob');
    const { refresh_token } = await stored('bob');
    expect(await t.revoke(refresh_token)).toBe(200);
    await t.expire('bob');
    const start = { ...t.grants };
    const results = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => getAccessToken(t.request(cookie), configs[i % 2]!, 'oidc')));
    for (const r of results) expect(r.status === 'rejected' && r.reason instanceof RefreshTokenError).toBe(true);
    expect(t.grants.refused - start.refused).toBe(1);
    // Asked again later: the refusal is remembered for that refresh token, nothing is sent.
    await expect(getAccessToken(t.request(cookie), configs[0], 'oidc')).rejects.toBeInstanceOf(RefreshTokenError);
    expect(t.grants.refused - start.refused).toBe(1);
  });

  it("a new sign-in's tokens (stored by the adapter) win over what Redis kept from the sign-in before", async () => {
    const cookie = await t.signIn('alice');
    await t.expire('alice');
    const refreshed = await getAccessToken(t.request(cookie), configs[0], 'oidc');
    // The adapter still holds the expired pair; Redis's refreshed one is answered, without a request.
    const between = { ...t.grants };
    expect(await getAccessToken(t.request(cookie), configs[1], 'oidc')).toBe(refreshed);
    expect(t.grants).toEqual(between);
    // A new sign-in: the adapter stores new tokens, and they are what is answered from then on.
    const again = await t.signIn('alice');
    const signedIn = await stored('alice');
    expect(signedIn.access_token).not.toBe(refreshed);
    const start = { ...t.grants };
    expect(await getAccessToken(t.request(again), configs[1], 'oidc')).toBe(signedIn.access_token);
    expect(t.grants).toEqual(start);
  });
});
