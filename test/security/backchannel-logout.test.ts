// Attacks on POST {basePath}/backchannel-logout/:provider: anyone can POST there, so a logout token that the
// provider did not sign for this client, for this purpose, once, must end nothing. Every refusal is a 400
// `invalid_request` (never a 500), and the targeted session stays alive; the genuine token then works once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDER_SESSIONS_KEPT } from '../../src/adapters/postgres/token-refresh.js';
import { tokenTestbed, type TokenTestbed } from '../e2e/tokens/harness.js';
import { attackerSigned, logoutClaims, opSigned, unsigned } from '../e2e/tokens/logout-tokens.js';

let t: TokenTestbed;
let cookie: string;
beforeAll(async () => {
  // The OP puts a sid in ID tokens only for clients that registered for back-channel logout with sessions.
  t = await tokenTestbed({
    features: { backchannelLogout: { enabled: true } },
    client: { backchannel_logout_uri: 'http://localhost:3000/auth/backchannel-logout/oidc', backchannel_logout_session_required: true },
  });
  cookie = await t.signIn('alice');
});
afterAll(async () => {
  await t?.close();
});

const post = (token: unknown, i = 0, provider = 'oidc') =>
  t.apps[i]!.handle(
    new Request(`http://localhost:3000/auth/backchannel-logout/${provider}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: token === undefined ? '' : new URLSearchParams({ logout_token: String(token) }),
    }),
  );
const alive = async () => Boolean(((await (await t.apps[1].handle(new Request('http://localhost:3000/auth/session', { headers: { cookie } }))).json()) as { user?: unknown } | null)?.user);

describe('back-channel logout refuses', () => {
  const cases: [string, () => Promise<unknown>][] = [
    ['no logout_token', async () => undefined],
    ['garbage', async () => 'not.a.jwt'],
    ['a token signed with a key the provider never published (forged)', () => attackerSigned(logoutClaims(t.op, { sub: 'alice' }))],
    ['an unsigned token (alg none)', async () => unsigned(logoutClaims(t.op, { sub: 'alice' }))],
    ['a token for another client (wrong audience)', () => opSigned(logoutClaims(t.op, { sub: 'alice', aud: 'some-other-client' }))],
    ['a token from another issuer', () => opSigned(logoutClaims(t.op, { sub: 'alice', iss: 'https://evil.example' }))],
    ['a token without iat', () => opSigned(logoutClaims(t.op, { sub: 'alice' }), ['iat'])],
    ['a token issued an hour ago', () => opSigned(logoutClaims(t.op, { sub: 'alice', iat: Math.floor(Date.now() / 1000) - 3600 }))],
    ['an expired token', () => opSigned(logoutClaims(t.op, { sub: 'alice', exp: Math.floor(Date.now() / 1000) - 120 }))],
    ['a token without the back-channel logout event', () => opSigned(logoutClaims(t.op, { sub: 'alice', events: { 'http://example.com/other-event': {} } }))],
    ['a token whose event is not an object', () => opSigned(logoutClaims(t.op, { sub: 'alice', events: { 'http://schemas.openid.net/event/backchannel-logout': 'yes' } }))],
    ['a token with a nonce (an ID token passed off as a logout)', () => opSigned(logoutClaims(t.op, { sub: 'alice', nonce: 'n-0S6_WzA2Mj' }))],
    ['a token naming neither sid nor sub', () => opSigned(logoutClaims(t.op))],
    ['a token without jti', () => opSigned(logoutClaims(t.op, { sub: 'alice' }), ['jti'])],
  ];
  it.each(cases)('%s', async (_name, make) => {
    const res = await post(await make());
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid_request' });
    expect(await alive()).toBe(true);
  });

  it('an unknown provider: 404, nothing ended', async () => {
    const res = await post(await opSigned(logoutClaims(t.op, { sub: 'alice' })), 0, 'nope');
    expect(res.status).toBe(404);
    expect(await alive()).toBe(true);
  });

  it('a replayed token, on the other instance: refused; the genuine token works once', async () => {
    const token = await opSigned(logoutClaims(t.op, { sub: 'alice' }));
    const first = await post(token, 0);
    expect(first.status).toBe(200);
    expect(await alive()).toBe(false);
    // Signed in again: the replay must not end the new session.
    cookie = await t.signIn('alice');
    const replay = await post(token, 1);
    expect(replay.status).toBe(400);
    expect(await replay.json()).toMatchObject({ error: 'invalid_request' });
    expect(await alive()).toBe(true);
  });

  it('sign-ins from ever new OP sessions do not grow provider_sessions without bound', async () => {
    for (let i = 0; i < PROVIDER_SESSIONS_KEPT + 3; i += 1) await t.signIn('bob');
    const [{ n }] = await t.sql<{ n: string }>(`SELECT count(*) AS n FROM provider_sessions WHERE user_id = (SELECT user_id FROM accounts WHERE provider_account_id = 'bob')`);
    expect(Number(n)).toBe(PROVIDER_SESSIONS_KEPT);
  });
});
