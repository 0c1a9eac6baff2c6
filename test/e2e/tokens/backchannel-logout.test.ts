// Back-channel logout against oidc-provider with the feature on: the OP itself sends a logout token for the
// user's OP session (sid) to POST {basePath}/backchannel-logout/oidc; the database sessions of that user end,
// on every instance; the same token sent again (to the other instance) is refused. Forged tokens:
// test/security/backchannel-logout.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sidOf } from '../../../src/core/id-token-sid.js';
import { tokenTestbed, type TokenTestbed } from './harness.js';
import { serveApps, type ServedApps } from './logout-app.js';

let t: TokenTestbed;
let served: ServedApps;
beforeAll(async () => {
  served = await serveApps();
  t = await tokenTestbed({
    features: { backchannelLogout: { enabled: true } },
    // The OP refuses to call loopback addresses (its SSRF guard); the app under test lives on 127.0.0.1.
    opConfig: { fetch: (url: string, { dispatcher: _loopbackRefused, ...options }: RequestInit & { dispatcher?: unknown }) => fetch(url, options) },
    client: { backchannel_logout_uri: `${served.urls[0]}/auth/backchannel-logout/oidc`, backchannel_logout_session_required: true },
  });
  served.setTestbed(t);
});
afterAll(async () => {
  await served?.close();
  await t?.close();
});

const session = async (cookie: string, i = 0) => (await (await t.apps[i]!.handle(new Request('http://localhost:3000/auth/session', { headers: { cookie } }))).json()) as { user?: unknown } | null;

describe('back-channel logout from oidc-provider', () => {
  it('the OP logs the user out of its session (sid): the app sessions end on both instances; a replay is refused', async () => {
    const cookie = await t.signIn('alice');
    const bobCookie = await t.signIn('bob');
    expect((await session(cookie))?.user).toBeTruthy();
    const [{ id_token }] = await t.sql<{ id_token: string }>(`SELECT id_token FROM accounts WHERE provider_account_id = 'alice'`);
    const sid = sidOf(id_token);
    expect(sid).toBeTruthy();
    expect(await t.sql(`SELECT sid FROM provider_sessions WHERE sid = $1`, [sid])).toHaveLength(1);
    // The OP's own back-channel logout of this client for alice's OP session: a real logout token, POSTed by the OP.
    await t.opLogout('alice', sid!);
    expect(served.received).toHaveLength(1);
    expect(await session(cookie, 0)).toBeNull();
    expect(await session(cookie, 1)).toBeNull();
    // Bob is untouched.
    expect((await session(bobCookie, 1))?.user).toBeTruthy();
    // The same logout token again, now to the other instance: refused as a replay.
    const replay = await fetch(`${served.urls[1]}/auth/backchannel-logout/oidc`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: served.received[0] });
    expect(replay.status).toBe(400);
    expect(await replay.json()).toMatchObject({ error: 'invalid_request' });
    expect(replay.headers.get('cache-control')).toContain('no-store');
  });
});

describe('back-channel logout of JWT sessions ("sessions valid after")', () => {
  let j: TokenTestbed;
  let servedJwt: ServedApps;
  beforeAll(async () => {
    servedJwt = await serveApps();
    j = await tokenTestbed({
      features: { backchannelLogout: { enabled: true } },
      opConfig: { fetch: (url: string, { dispatcher: _loopbackRefused, ...options }: RequestInit & { dispatcher?: unknown }) => fetch(url, options) },
      client: { backchannel_logout_uri: `${servedJwt.urls[1]}/auth/backchannel-logout/oidc`, backchannel_logout_session_required: true },
      // updateAge 0: every read checks "sessions valid after" (the default checks at most once a day).
      session: { strategy: 'jwt', updateAge: 0 },
    });
    servedJwt.setTestbed(j);
  });
  afterAll(async () => {
    await servedJwt?.close();
    await j?.close();
  });

  it('the OP logs the user out: the JWT session is refused on both instances from its next read', async () => {
    const cookie = await j.signIn('alice');
    const read = async (i: number) => (await (await j.apps[i]!.handle(new Request('http://localhost:3000/auth/session', { headers: { cookie } }))).json()) as { user?: unknown } | null;
    expect((await read(0))?.user).toBeTruthy();
    const [{ id_token }] = await j.sql<{ id_token: string }>(`SELECT id_token FROM accounts WHERE provider_account_id = 'alice'`);
    // A JWT session that began this very second must count as before the logout: the times compare in whole seconds.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    await j.opLogout('alice', sidOf(id_token)!);
    expect(servedJwt.received).toHaveLength(1);
    expect(await j.sql(`SELECT 1 FROM sessions_valid_after`)).toHaveLength(1);
    expect(await read(0)).toBeNull();
    expect(await read(1)).toBeNull();
  });
});
