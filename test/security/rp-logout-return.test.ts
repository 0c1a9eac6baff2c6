// Attacks on GET {basePath}/signout-callback/:provider (RP-initiated logout's return): a forged state, another
// browser's state (login-CSRF's sign-out twin), a tampered pending-sign-out cookie and a cookie of another provider
// each land on the error page (never a 500), and none ends up redirecting where the attacker wanted. A return is
// single-use: the same pending-sign-out cookie and state, replayed after they came back once, are refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CookieJar } from '../support/cookie-jar.js';
import { tokenTestbed, type TokenTestbed } from '../e2e/tokens/harness.js';

let t: TokenTestbed;
beforeAll(async () => {
  t = await tokenTestbed({ client: { post_logout_redirect_uris: ['http://localhost:3000/auth/signout-callback/oidc'] }, provider: { rpInitiatedLogout: true } });
});
afterAll(async () => {
  await t?.close();
});

async function pendingSignOut(who: string) {
  const client = t.apps[0].newClient();
  const csrfToken = await t.apps[0].csrfToken(client);
  const start = await client.post('/auth/signin/oidc', { csrfToken, callbackUrl: '/after' });
  await client.submit(await t.op.login(start.location!.href, who, { cookies: new CookieJar() }));
  const out = await client.post('/auth/signout', { csrfToken: await t.apps[0].csrfToken(client), callbackUrl: '/bye' });
  expect(out.location?.origin).toBe(t.op.issuer);
  return { client, state: out.location!.searchParams.get('state')! };
}

describe('the RP-initiated logout return refuses', () => {
  it('a forged state', async () => {
    const { client } = await pendingSignOut('alice');
    const res = await client.get('/auth/signout-callback/oidc?state=forged');
    expect(res.status).toBe(302);
    expect(res.location?.pathname).toBe('/auth/error');
  });

  it("another browser's state (no pending sign-out here)", async () => {
    const { state } = await pendingSignOut('bob');
    const res = await t.apps[1].newClient().get(`/auth/signout-callback/oidc?state=${state}`);
    expect(res.location?.pathname).toBe('/auth/error');
  });

  it('a tampered pending-sign-out cookie, and one presented for another provider', async () => {
    const { client, state } = await pendingSignOut('alice');
    const cookie = client.cookies.header('http://localhost:3000/');
    const tampered = cookie.replace(/(authchart\.provider-logout=)([^;]+)/, (_m, k: string, v: string) => `${k}${v.slice(0, -4)}AAAA`);
    const res = await t.apps[0].handle(new Request(`http://localhost:3000/auth/signout-callback/oidc?state=${state}`, { headers: { cookie: tampered } }));
    expect(res.status).toBe(302);
    expect(new URL(res.headers.get('location')!).pathname).toBe('/auth/error');
    const other = await t.apps[0].handle(new Request(`http://localhost:3000/auth/signout-callback/github?state=${state}`, { headers: { cookie } }));
    expect(new URL(other.headers.get('location')!).pathname).toBe('/auth/error');
    // The untouched cookie with its state still completes: the refusals above are the attacks' doing.
    const ok = await t.apps[0].handle(new Request(`http://localhost:3000/auth/signout-callback/oidc?state=${state}`, { headers: { cookie } }));
    expect(ok.headers.get('location')).toBe('http://localhost:3000/bye');
  });

  it('a replayed return: the cookie and state that already came back once', async () => {
    const { client, state } = await pendingSignOut('alice');
    const cookie = client.cookies.header('http://localhost:3000/');
    const returning = () => t.apps[0].handle(new Request(`http://localhost:3000/auth/signout-callback/oidc?state=${state}`, { headers: { cookie } }));
    const first = await returning();
    expect(first.headers.get('location')).toBe('http://localhost:3000/bye');
    const replay = await returning();
    expect(replay.status).toBe(302);
    expect(new URL(replay.headers.get('location')!).pathname).toBe('/auth/error');
  });
});
