// OAuth 2 and OpenID Connect sign-in end to end: authchart's HTTP layer against a real OpenID Provider
// (oidc-provider on 127.0.0.1), with real redirects, cookies and tokens: the protocol and its options.
import type { EventEmitter } from 'node:events';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Account } from '../../src/core/types.js';
import { AuthInit } from '../../src/http/integrations/fetch.js';
import { OIDC } from '../../src/providers/oauth.js';
import { clearDiscoveryCache } from '../../src/providers/oauth-server.js';
import { TEST_SECRET, type TestAuth } from '../support/auth-app.js';
import { createClient } from '../support/client.js';
import type { OidcProviderHarness } from './peers/oidc.js';
import { BASE, callbackOf, callbackWithCookie, cookieLine, FLOW_COOKIE, flowCookieOf, flowCookieValue, loggedTraces, setsSession, signInThrough, startSignIn, withParam } from './oauth/harness.js';
import { SECRET_A, startTestbed, strict, type Testbed } from './oauth/testbed.js';

let bed: Testbed;
let op: OidcProviderHarness;
let app: Testbed['app'];

beforeAll(async () => {
  bed = await startTestbed();
  ({ op, app } = bed);
});
afterAll(async () => {
  await bed?.stop();
});
afterEach(() => {
  vi.useRealTimers();
});


async function session(t: TestAuth, client = t.client): Promise<{ user?: { email?: string; name?: string } } | null> {
  return (await (await client.get('/auth/session')).json()) as { user?: { email?: string; name?: string } } | null;
}

describe('OpenID Connect code flow', () => {
  it('signs in with PKCE, state and nonce, and lands on the callback URL with a session', async () => {
    const signIns: { account: Account | null; user: { email?: string | null } }[] = [];
    const t = app({ signIns });
    const { start, callback } = await signInThrough(t, op, 'oidc', 'alice');
    const auth = start.location!;
    expect(auth.origin + auth.pathname).toBe(`${op.issuer}/auth`);
    expect(Object.fromEntries(auth.searchParams)).toMatchObject({
      response_type: 'code',
      client_id: 'authchart-test',
      redirect_uri: callbackOf('oidc'),
      scope: 'openid profile email',
      code_challenge_method: 'S256',
    });
    for (const p of ['code_challenge', 'state', 'nonce']) expect(auth.searchParams.get(p)).toMatch(/^[\w-]{43}$/);
    expect(callback.status).toBe(302);
    expect(callback.location?.href).toBe(`${BASE}/dashboard`);
    expect(setsSession(callback)).toBe(true);
    expect(cookieLine(callback, FLOW_COOKIE)).toMatch(/Max-Age=0/);
    expect((await session(t))?.user).toMatchObject({ email: 'alice@example.test', name: 'Alice Liddell' });
    expect(signIns).toHaveLength(1);
    expect(signIns[0].account).toMatchObject({ provider: 'oidc', type: 'oidc', providerAccountId: 'alice', token_type: 'bearer' });
    expect(signIns[0].account?.id_token).toMatch(/^ey/);
    expect(t.logger.errors).toEqual([]);
  });

  it("signs in through the provider's own token request, its ID token checked as one from the token endpoint", async () => {
    const signIns: { account: Account | null }[] = [];
    const t = app({ signIns });
    const { callback } = await signInThrough(t, op, 'own-token', 'alice');
    expect(callback.status).toBe(302);
    expect(setsSession(callback)).toBe(true);
    expect((await session(t))?.user).toMatchObject({ email: 'alice@example.test', name: 'Alice Liddell' });
    expect(signIns[0].account).toMatchObject({ provider: 'own-token', providerAccountId: 'alice' });
    expect(t.logger.errors).toEqual([]);
  });

  it('keeps the flow cookie under 1,200 bytes, HttpOnly, Lax, 15 minutes, and opaque', async () => {
    const t = app();
    const start = await startSignIn(t, 'oidc', { callbackUrl: `${BASE}/a/rather/typical/path?tab=settings` });
    const line = cookieLine(start, FLOW_COOKIE)!;
    expect(line.length).toBeLessThan(1200);
    expect(line).toMatch(/; Max-Age=900/);
    expect(line).toMatch(/; Path=\//);
    expect(line).toMatch(/; HttpOnly/);
    expect(line).toMatch(/; SameSite=Lax/);
    expect(line).not.toMatch(/Secure/);
    // The state and PKCE values are sealed: none of them is readable in the cookie.
    const value = flowCookieValue(start);
    expect(value).not.toContain(start.location!.searchParams.get('state'));
    const header = JSON.parse(Buffer.from(value.split('.')[0], 'base64url').toString());
    expect(header).toEqual({ alg: 'dir', enc: 'A256CBC-HS512' });
    console.log(`flow cookie (PKCE + state + nonce): Set-Cookie ${line.length} bytes, value ${value.length} characters`);
  });

  it('computes expires_at from expires_in and lowercases token_type', async () => {
    const now = Date.UTC(2031, 4, 1, 12, 0, 0);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(now);
    const signIns: { account: Account | null }[] = [];
    const t = app({ signIns });
    await signInThrough(t, op, 'oidc', 'bob');
    const account = signIns[0].account!;
    expect(account.expires_at).toBe(now / 1000 + 3600);
    expect(account.token_type).toBe('bearer');
  });

  it('discovers the endpoints from wellKnown', async () => {
    clearDiscoveryCache();
    const t = app();
    const { start, callback } = await signInThrough(t, op, 'wk', 'alice');
    expect(start.location!.href.startsWith(`${op.issuer}/auth?`)).toBe(true);
    expect(setsSession(callback)).toBe(true);
    const [started] = loggedTraces(t);
    expect(started.trace.map((e) => e.to)).toEqual(['preparing', 'awaitingCallback']);
  });

  it('reads the profile from the user-info endpoint when idToken is false', async () => {
    const signIns: { user: { email?: string | null; name?: string | null } }[] = [];
    const t = app({ signIns });
    const { callback } = await signInThrough(t, op, 'userinfo', 'bob');
    expect(setsSession(callback)).toBe(true);
    expect(signIns[0].user).toMatchObject({ id: 'bob', email: 'bob@example.test', name: 'Bob Builder' });
  });

  it('authenticates at the token endpoint with client_secret_post when the client says so, else with Basic', async () => {
    const seen: { client: string; basic: boolean; inBody: boolean }[] = [];
    type GrantContext = { headers: Record<string, unknown>; oidc: { client?: { clientId: string }; params?: Record<string, unknown> } };
    // The OP's own view of each token request: where the client secret came in.
    const record = (...args: unknown[]) => {
      const ctx = args[0] as GrantContext;
      seen.push({ client: ctx.oidc.client!.clientId, basic: ctx.headers.authorization !== undefined, inBody: ctx.oidc.params?.client_secret !== undefined });
    };
    op.provider.on('grant.success', record);
    try {
      const t = app();
      expect(setsSession((await signInThrough(t, op, 'post', 'alice')).callback)).toBe(true);
      expect(setsSession((await signInThrough(t, op, 'oidc', 'alice', { client: t.newClient() })).callback)).toBe(true);
    } finally {
      (op.provider as unknown as EventEmitter).removeListener('grant.success', record);
    }
    expect(seen).toEqual([
      { client: 'authchart-post', basic: false, inBody: true },
      { client: 'authchart-test', basic: true, inBody: false },
    ]);
  });

  it('passes authorization params from the sign-in query, but never redirect_uri, state or the PKCE challenge', async () => {
    const t = app();
    const query = {
      login_hint: 'alice',
      ui_locales: 'fr',
      redirect_uri: 'https://evil.test/steal',
      state: 'attacker-state',
      nonce: 'attacker-nonce',
      code_challenge: 'attacker',
      client_id: 'evil',
      response_type: 'token',
    };
    const { start, callback } = await signInThrough(t, op, 'oidc', 'alice', { query });
    const params = start.location!.searchParams;
    expect(params.get('login_hint')).toBe('alice');
    expect(params.get('ui_locales')).toBe('fr');
    expect(params.get('redirect_uri')).toBe(callbackOf('oidc'));
    expect(params.get('client_id')).toBe('authchart-test');
    expect(params.get('response_type')).toBe('code');
    for (const p of ['state', 'nonce', 'code_challenge'] as const) expect(params.get(p)).not.toBe(query[p]);
    expect(params.getAll('state')).toHaveLength(1);
    expect(setsSession(callback)).toBe(true);
  });
});

describe('signIn() on the server', () => {
  it('sends its authorizationParams to the authorization URL, and the sign-in completes', async () => {
    const signIns: { user: { email?: string | null } }[] = [];
    const { handlers, signIn } = AuthInit({
      secret: TEST_SECRET,
      trustHost: true,
      basePath: '/auth',
      providers: [OIDC({ id: 'oidc', name: 'OP', issuer: op.issuer, clientId: 'authchart-test', clientSecret: SECRET_A, checks: strict })],
      events: { signIn: (m) => void signIns.push(m) },
    });
    const browser = createClient({ fetch: handlers.GET, baseUrl: BASE });
    const request = new Request(`${BASE}/account`);
    const res = await signIn('oidc', { request, redirectTo: '/account' }, { login_hint: 'bob', prompt: 'login', state: 'attacker' });
    expect(res.status).toBe(302);
    const auth = new URL(res.headers.get('location')!);
    expect(auth.searchParams.get('login_hint')).toBe('bob');
    expect(auth.searchParams.get('prompt')).toBe('login');
    expect(auth.searchParams.get('state')).not.toBe('attacker');
    browser.cookies.setFromResponse(BASE, res);
    const callback = await browser.submit(await op.login(auth, 'bob'));
    expect(callback.location?.href).toBe(`${BASE}/account`);
    expect(setsSession(callback)).toBe(true);
    expect(signIns.map((m) => m.user.email)).toEqual(['bob@example.test']);
  });
});

describe('plain OAuth 2', () => {
  it('signs in without openid: no nonce, no ID token, the profile from the user-info endpoint', async () => {
    const signIns: { user: Record<string, unknown>; account: Account | null }[] = [];
    const t = app({ signIns });
    const { start, callback } = await signInThrough(t, op, 'oauth2', 'bob');
    expect(start.location!.searchParams.get('scope')).toBe('api:read');
    expect(start.location!.searchParams.has('nonce')).toBe(false);
    expect(setsSession(callback)).toBe(true);
    expect(signIns[0].user).toMatchObject({ id: 'bob', email: 'bob@example.test', name: 'Bob Builder' });
    expect(signIns[0].account).toMatchObject({ provider: 'oauth2', type: 'oauth', providerAccountId: 'bob', scope: 'api:read', token_type: 'bearer' });
    expect(signIns[0].account?.id_token).toBeUndefined();
    // No discovery: the endpoints were configured.
    expect(loggedTraces(t)[0].trace.map((e) => e.to)).toEqual(['preparing', 'awaitingCallback']);
  });
});

describe('response_mode=form_post', () => {
  it('comes back by POST, with a SameSite=None; Secure flow cookie', async () => {
    const t = app();
    const start = await startSignIn(t, 'formpost');
    expect(start.location!.searchParams.get('response_mode')).toBe('form_post');
    const line = cookieLine(start, flowCookieOf('formpost'))!;
    expect(line).toMatch(/; SameSite=None/);
    expect(line).toMatch(/; Secure/);
    expect(line).toMatch(/; HttpOnly/);
    expect(line.length).toBeLessThan(1200);
    const nav = await op.login(start.location!.href, 'alice');
    expect(nav.method).toBe('POST');
    expect(Object.keys(nav.form ?? {}).sort()).toEqual(['code', 'iss', 'state']);
    const callback = await t.client.submit(nav);
    expect(callback.location?.href).toBe(`${BASE}/dashboard`);
    expect(setsSession(callback)).toBe(true);
    expect((await session(t))?.user?.email).toBe('alice@example.test');
  });

  it('returns to the callback URL chosen at sign-in, though the cross-site POST carries only the flow cookie', async () => {
    const t = app();
    const start = await startSignIn(t, 'formpost', { callbackUrl: `${BASE}/after-form-post` });
    const nav = await op.login(start.location!.href, 'alice');
    // A browser sends no SameSite=Lax cookie (the callback-url one) on the OP's cross-site POST: only the flow cookie.
    const callback = await callbackWithCookie(t.client, nav, `${flowCookieOf('formpost')}=${flowCookieValue(start, 'formpost')}`);
    expect(callback.location?.href).toBe(`${BASE}/after-form-post`);
    expect(setsSession(callback)).toBe(true);
  });

  it("adds the posted `user` field (Apple's first sign-in) to the profile as a name, never as an identity", async () => {
    const signIns: { profile?: Record<string, unknown> }[] = [];
    const t = app({ signIns });
    const nav = await op.login((await startSignIn(t, 'formpost')).location!.href, 'alice');
    const user = JSON.stringify({ name: { firstName: 'Jane', lastName: 'Appleseed', extra: { nested: true } }, email: 'mallory@example.test', sub: 'someone-else' });
    const callback = await t.client.submit({ ...nav, form: { ...nav.form, user } });
    expect(setsSession(callback)).toBe(true);
    expect(signIns[0].profile).toMatchObject({ sub: 'alice', email: 'alice@example.test', user: { name: { firstName: 'Jane', lastName: 'Appleseed' } } });
    expect((signIns[0].profile!.user as { name: Record<string, unknown> }).name).toEqual({ firstName: 'Jane', lastName: 'Appleseed' });
    expect((await session(t))?.user?.email).toBe('alice@example.test');

    // A field that is not a JSON object is no user field: the sign-in goes on without one.
    for (const junk of ['{not json', '42', '["Jane"]', 'null']) {
      const before = signIns.length;
      const again = app({ signIns });
      const posted = await op.login((await startSignIn(again, 'formpost')).location!.href, 'alice');
      expect(setsSession(await again.client.submit({ ...posted, form: { ...posted.form, user: junk } }))).toBe(true);
      expect(signIns[before].profile).not.toHaveProperty('user');
    }

    // A query callback (no form_post) carrying `user=` gets nothing from it.
    const other = app({ signIns });
    const plain = await op.login((await startSignIn(other, 'oidc')).location!.href, 'alice');
    await other.client.get(withParam(plain.url, 'user', user));
    expect(signIns.at(-1)!.profile).not.toHaveProperty('user');
  });

  it('asks for form_post from the sign-in query too, and only then loosens the cookie', async () => {
    const t = app();
    const plain = await startSignIn(t, 'oidc');
    expect(cookieLine(plain, FLOW_COOKIE)).toMatch(/; SameSite=Lax/);
    const posted = await startSignIn(t, 'oidc', { query: { response_mode: 'form_post' }, client: t.newClient() });
    expect(cookieLine(posted, FLOW_COOKIE)).toMatch(/; SameSite=None; Secure|; Secure; SameSite=None/);
  });
});

