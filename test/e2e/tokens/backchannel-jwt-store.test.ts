// Back-channel logout of JWT sessions without an adapter: at sign-in the ID token's `sid` (and the account's `sub`)
// is recorded for the user in the flow store (Redis, shared by both instances); oidc-provider's own logout token,
// naming only the OP session, ends that user's JWT sessions through "sessions valid after" (Redis), on both
// instances. Another user's session lives on; the same token again is refused.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sidOf } from '../../../src/core/id-token-sid.js';
import { redisFlowStore } from '../../../src/core/flow-store/store.js';
import type { AuthConfig } from '../../../src/core/options.js';
import { OIDC } from '../../../src/providers/oauth.js';
import { redisSessionsValidAfter } from '../../../src/session/valid-after-redis.js';
import { ORIGIN, testAuth, type TestAuth } from '../../support/auth-app.js';
import { tokenTestbed, type TokenTestbed } from './harness.js';
import { serveApps, type ServedApps } from './logout-app.js';

const REDIS = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `authchart-test:bcl:${randomUUID()}:`;

let t: TokenTestbed;
let served: ServedApps;
let redis: Redis;
let apps: [TestAuth, TestAuth];
const idTokens = new Map<string, string>();

beforeAll(async () => {
  served = await serveApps();
  t = await tokenTestbed({
    features: { backchannelLogout: { enabled: true } },
    // The OP refuses to call loopback addresses (its SSRF guard); the app under test lives on 127.0.0.1.
    opConfig: { fetch: (url: string, { dispatcher: _loopbackRefused, ...options }: RequestInit & { dispatcher?: unknown }) => fetch(url, options) },
    client: { backchannel_logout_uri: `${served.urls[1]}/auth/backchannel-logout/oidc`, backchannel_logout_session_required: true },
  });
  redis = new Redis(REDIS, { maxRetriesPerRequest: 1 });
  // No adapter: JWT sessions, the flow store and the "sessions valid after" times in Redis.
  const config = (): AuthConfig => ({
    session: { strategy: 'jwt', updateAge: 0, validAfter: redisSessionsValidAfter(redis, { prefix: `${prefix}va:` }) },
    flowStore: redisFlowStore(redis, { prefix: `${prefix}flow:` }),
    events: { signIn: ({ account, profile }) => void idTokens.set(String(profile?.sub), String(account?.id_token)) },
    providers: [
      OIDC({
        id: 'oidc',
        name: 'Test OP',
        issuer: t.op.issuer,
        clientId: t.op.clientId,
        clientSecret: t.op.clientSecret,
        checks: ['pkce', 'state', 'nonce'],
      }),
    ],
  });
  apps = [testAuth(config()), testAuth(config())];
  served.setTestbed({ apps } as unknown as TokenTestbed);
});
afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length > 0) await redis.del(...keys);
  redis?.disconnect();
  await served?.close();
  await t?.close();
});

async function signIn(who: string): Promise<string> {
  const client = apps[0].newClient();
  const csrfToken = await apps[0].csrfToken(client);
  const start = await client.post('/auth/signin/oidc', { csrfToken, callbackUrl: '/after' });
  const done = await client.submit(await t.op.login(start.location!.href, who));
  expect(done.location?.pathname).toBe('/after');
  return client.cookies.header(`${ORIGIN}/`);
}
const read = async (cookie: string, i: number) => (await (await apps[i]!.handle(new Request(`${ORIGIN}/auth/session`, { headers: { cookie } }))).json()) as { user?: unknown } | null;

describe('back-channel logout of JWT sessions without an adapter (sid recorded in the flow store)', () => {
  it('a logout token naming only the OP session ends that user\'s JWT sessions on both instances; others live; a replay is refused', async () => {
    const alice = await signIn('alice');
    const bob = await signIn('bob');
    expect((await read(alice, 1))?.user).toBeTruthy();
    const sid = sidOf(idTokens.get('alice'));
    expect(sid).toBeTruthy();
    await t.opLogout('alice', sid!);
    expect(served.received).toHaveLength(1);
    expect(await read(alice, 0)).toBeNull();
    expect(await read(alice, 1)).toBeNull();
    expect((await read(bob, 0))?.user).toBeTruthy();
    const replay = await fetch(`${served.urls[0]}/auth/backchannel-logout/oidc`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: served.received[0] });
    expect(replay.status).toBe(400);
    // alice signs in again after the logout: her new session is not ended by the logout before it. Session times
    // are whole seconds (a session begun in the logout's own second counts as before it), so the next second.
    await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() % 1000) + 10));
    const again = await signIn('alice');
    expect((await read(again, 1))?.user).toBeTruthy();
  });

  it('a logout token for an OP session nobody signed in with here ends nothing and answers 200', async () => {
    const bob = await signIn('bob');
    await t.opLogout('bob', 'an-op-session-of-another-app');
    expect((await read(bob, 0))?.user).toBeTruthy();
  });
});
