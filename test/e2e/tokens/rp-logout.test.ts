// RP-initiated logout against oidc-provider (rpInitiatedLogout on, the app's post-logout redirect registered):
// signing out of the app also ends the user's session at the provider, through its end_session_endpoint with
// id_token_hint, post_logout_redirect_uri and state; the state is checked when the provider sends the browser back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../support/client.js';
import { CookieJar } from '../../support/cookie-jar.js';
import { readForms } from '../peers/html-form.js';
import { tokenTestbed, type TokenTestbed } from './harness.js';

let t: TokenTestbed;
beforeAll(async () => {
  t = await tokenTestbed({
    client: { post_logout_redirect_uris: ['http://localhost:3000/auth/signout-callback/oidc'] },
    provider: { rpInitiatedLogout: true },
  });
});
afterAll(async () => {
  await t?.close();
});

/** Signs in on instance 0 with an OP jar that keeps the OP session; the app client. */
async function signIn(who: string, opJar: CookieJar) {
  const client = t.apps[0].newClient();
  const csrfToken = await t.apps[0].csrfToken(client);
  const start = await client.post('/auth/signin/oidc', { csrfToken, callbackUrl: '/after' });
  const done = await client.submit(await t.op.login(start.location!.href, who, { cookies: opJar }));
  expect(done.location?.pathname).toBe('/after');
  return client;
}

/** Whether the OP still has a session in this jar: an authorization request goes straight back without a login page. */
async function opSessionAlive(opJar: CookieJar): Promise<boolean> {
  const client = t.apps[0].newClient();
  const csrfToken = await t.apps[0].csrfToken(client);
  const start = await client.post('/auth/signin/oidc', { csrfToken, callbackUrl: '/after' });
  const agent = createClient({ baseUrl: t.op.issuer, cookies: opJar });
  let res = await agent.get(start.location!);
  for (let i = 0; i < 5 && res.location && res.location.origin === t.op.issuer; i++) res = await agent.get(res.location);
  if (res.location && res.location.origin !== t.op.issuer) return true; // back at the app without logging in
  return !/name="login"/.test(await res.text());
}

/** Plays the user on the OP's "sign out?" page: confirms. Where the OP sends the browser then. */
async function confirmAtOp(url: URL, opJar: CookieJar): Promise<URL> {
  const agent = createClient({ baseUrl: t.op.issuer, cookies: opJar });
  const page = await agent.get(url);
  const form = readForms(await page.text()).find((f) => f.method === 'POST');
  expect(form).toBeTruthy();
  const res = await agent.post(new URL(form!.action, t.op.issuer), { ...form!.fields, logout: 'yes' });
  expect(res.location).toBeTruthy();
  return res.location!;
}

describe('RP-initiated logout with oidc-provider', () => {
  it('sign-out ends the app session, then the OP session, and returns to the callback URL after checking state', async () => {
    const opJar = new CookieJar();
    const client = await signIn('alice', opJar);
    expect(await opSessionAlive(opJar)).toBe(true);
    const csrfToken = await t.apps[0].csrfToken(client);
    const out = await client.post('/auth/signout', { csrfToken, callbackUrl: '/bye' });
    const end = out.location!;
    expect(`${end.origin}${end.pathname}`).toBe(`${t.op.issuer}/session/end`);
    expect(end.searchParams.get('id_token_hint')).toBe((await t.sql<{ id_token: string }>(`SELECT id_token FROM accounts WHERE provider_account_id = 'alice'`))[0]!.id_token);
    expect(end.searchParams.get('post_logout_redirect_uri')).toBe('http://localhost:3000/auth/signout-callback/oidc');
    const state = end.searchParams.get('state');
    expect(state).toMatch(/^[\w-]{32}$/);
    // The app session is gone already.
    expect(await (await client.get('/auth/session')).json()).toBeNull();
    const back = await confirmAtOp(end, opJar);
    expect(back.href.startsWith('http://localhost:3000/auth/signout-callback/oidc')).toBe(true);
    expect(back.searchParams.get('state')).toBe(state);
    const done = await client.get(back);
    expect(done.status).toBe(302);
    expect(done.location?.href).toBe('http://localhost:3000/bye');
    expect(await opSessionAlive(opJar)).toBe(false);
  });

  it('a return with another state, or with no pending sign-out, goes to the error page', async () => {
    const opJar = new CookieJar();
    const client = await signIn('bob', opJar);
    const csrfToken = await t.apps[0].csrfToken(client);
    const out = await client.post('/auth/signout', { csrfToken, callbackUrl: '/bye' });
    expect(out.location?.origin).toBe(t.op.issuer);
    const forged = await client.get('/auth/signout-callback/oidc?state=forged-state-value');
    expect(forged.location?.pathname).toBe('/auth/error');
    // The pending sign-out was single-use: the right state now finds nothing either.
    const late = await client.get(`/auth/signout-callback/oidc?state=${out.location!.searchParams.get('state')}`);
    expect(late.location?.pathname).toBe('/auth/error');
    // Another browser, no pending sign-out.
    const stranger = await t.apps[0].newClient().get('/auth/signout-callback/oidc?state=x');
    expect(stranger.location?.pathname).toBe('/auth/error');
  });

  it('a provider without the option, or a user without an ID token, signs out locally only', async () => {
    const opJar = new CookieJar();
    const client = await signIn('alice', opJar);
    await t.sql(`UPDATE accounts SET id_token = NULL WHERE provider_account_id = 'alice'`);
    const csrfToken = await t.apps[0].csrfToken(client);
    const out = await client.post('/auth/signout', { csrfToken, callbackUrl: '/bye' });
    expect(out.location?.href).toBe('http://localhost:3000/bye');
    expect(await opSessionAlive(opJar)).toBe(true);
  });
});
