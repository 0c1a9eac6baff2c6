import { describe, expect, it } from 'vitest';
import type { Adapter } from '../../src/core/adapter.js';
import type { JWT } from '../../src/core/types.js';
import { testAuth, ORIGIN } from '../support/auth-app.js';
import { forms, hidden, text } from './pages/dom.js';
import {
  ADA,
  adaProvider,
  cookiesNamed,
  CSRF_COOKIE,
  memoryAdapter,
  SESSION_COOKIE,
  sessionClears,
  sessionToken,
  sessionWrites,
  signIn,
} from './helpers.js';

const pages = { signIn: '/login', signOut: '/logout', error: '/oops', verifyRequest: '/check-mail', newUser: '/welcome' };

describe('GET /signin', () => {
  it('lists the credentials form, posting to the callback route with the CSRF token and callbackUrl', async () => {
    const t = testAuth({ providers: [adaProvider()] });
    const res = await t.client.get('/auth/signin?callbackUrl=%2Fdashboard');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    const html = await res.text();
    const [form, ...others] = forms(html);
    expect(others).toEqual([]);
    expect(form!.form.attrs.action).toBe(`${ORIGIN}/auth/callback/credentials`);
    expect(form!.form.attrs.method).toBe('post');
    const fields = hidden(form!.inner);
    expect(fields.callbackUrl).toBe(`${ORIGIN}/dashboard`);
    expect(fields.csrfToken).toMatch(/^[0-9a-f]{64}$/);
    expect(decodeURIComponent(t.client.cookies.get(CSRF_COOKIE)!).split('|')[0]).toBe(fields.csrfToken);
    expect(text(html)).toContain('Password');
    expect(form!.inner).toMatch(/name="password" type="password"/);
  });

  it('signs in by submitting its own form', async () => {
    const t = testAuth({ providers: [adaProvider()] });
    const html = await (await t.client.get('/auth/signin?callbackUrl=%2Fdashboard')).text();
    const [form] = forms(html);
    const res = await t.client.post(form!.form.attrs.action!, { ...hidden(form!.inner), email: ADA.email, password: 'correct horse' });
    expect(res.location?.href).toBe(`${ORIGIN}/dashboard`);
    expect(sessionWrites(res)).toHaveLength(1);
  });

  it('lists every provider, each with its own form', async () => {
    const t = testAuth({ providers: [adaProvider(), adaProvider({ id: 'staff', name: 'Staff login' })] });
    const html = await (await t.client.get('/auth/signin')).text();
    expect(forms(html).map((f) => f.form.attrs.action)).toEqual([`${ORIGIN}/auth/callback/credentials`, `${ORIGIN}/auth/callback/staff`]);
    expect(text(html)).toContain('Sign in with Staff login');
  });

  it('shows the error it is given', async () => {
    const t = testAuth({ providers: [adaProvider()] });
    const html = await (await t.client.get('/auth/signin?error=CredentialsSignin')).text();
    expect(html).toContain('role="alert"');
  });

  it('redirects to pages.signIn with callbackUrl and error', async () => {
    const t = testAuth({ providers: [adaProvider()], pages });
    const res = await t.client.get('/auth/signin?callbackUrl=%2Fdashboard&error=AccessDenied');
    expect(res.status).toBe(302);
    expect(res.location?.pathname).toBe('/login');
    expect(Object.fromEntries(res.location!.searchParams)).toEqual({ callbackUrl: `${ORIGIN}/dashboard`, error: 'AccessDenied' });
  });

  it('sends sign-in errors to pages.signIn', async () => {
    const t = testAuth({ providers: [adaProvider()], pages });
    const res = await signIn(t, { password: 'wrong' });
    expect(res.location?.href).toBe(`${ORIGIN}/login?error=CredentialsSignin&code=credentials`);
  });
});

describe('error pages', () => {
  it.each([
    ['Configuration', 500],
    ['AccessDenied', 403],
    ['Verification', 403],
    ['CredentialsSignin', 200],
    ['SomethingElse', 200],
  ])('GET /error?error=%s answers %i', async (error, status) => {
    const t = testAuth({ providers: [adaProvider()] });
    const res = await t.client.get(`/auth/error?error=${error}`);
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toContain('text/html');
  });

  it('never reflects a hostile error parameter', async () => {
    const t = testAuth({ providers: [adaProvider()] });
    const html = await (await t.client.get(`/auth/error?error=${encodeURIComponent('<script>alert(1)</script>')}`)).text();
    expect(html).not.toContain('<script>alert(1)</script>');
    expect(html).not.toContain('alert(1)');
  });

  it('redirects to pages.error with the error type', async () => {
    const t = testAuth({ providers: [adaProvider()], pages });
    const res = await t.client.get('/auth/error?error=Verification');
    expect(res.location?.href).toBe(`${ORIGIN}/oops?error=Verification`);
  });

  it('sends flow errors to pages.error', async () => {
    const t = testAuth({ providers: [adaProvider()], pages, callbacks: { signIn: () => false } });
    const res = await signIn(t);
    expect(res.location?.href).toBe(`${ORIGIN}/oops?error=AccessDenied`);
  });
});

describe('GET /verify-request', () => {
  it('renders the built-in page', async () => {
    const t = testAuth({ providers: [adaProvider()] });
    const res = await t.client.get('/auth/verify-request?provider=email&type=email');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
  });

  it('redirects to pages.verifyRequest with the original query', async () => {
    const t = testAuth({ providers: [adaProvider()], pages });
    const res = await t.client.get('/auth/verify-request?provider=email&type=email');
    expect(res.location?.href).toBe(`${ORIGIN}/check-mail?provider=email&type=email`);
  });
});

describe('pages.newUser', () => {
  it('receives a user created at sign-in, with the callbackUrl', async () => {
    const adapter = memoryAdapter();
    const t = testAuth({ providers: [adaProvider()], pages, adapter: adapter as unknown as Adapter });
    const first = await signIn(t, { callbackUrl: '/dashboard' });
    expect(first.location?.pathname).toBe('/welcome');
    expect(first.location?.searchParams.get('callbackUrl')).toBe(`${ORIGIN}/dashboard`);
    expect(adapter.users.size).toBe(1);
    expect((await (await t.client.get('/auth/session')).json()).user.email).toBe(ADA.email);

    const again = await signIn(t, { callbackUrl: '/dashboard' }, t.newClient());
    expect(again.location?.href).toBe(`${ORIGIN}/dashboard`);
  });
});

describe('GET /signout', () => {
  it('asks a signed-in visitor for confirmation with a form that posts to /signout with the CSRF token', async () => {
    const t = testAuth({ providers: [adaProvider()] });
    await signIn(t);
    const res = await t.client.get('/auth/signout?callbackUrl=%2Fbye');
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(text(page.replace(/<wbr>/g, ''))).toContain(`Signed in as ${ADA.email}.`);
    const [form] = forms(page);
    expect(form!.form.attrs.action).toBe(`${ORIGIN}/auth/signout`);
    const fields = hidden(form!.inner);
    expect(fields.callbackUrl).toBe(`${ORIGIN}/bye`);
    expect(decodeURIComponent(t.client.cookies.get(CSRF_COOKIE)!).split('|')[0]).toBe(fields.csrfToken);
  });

  it('tells a visitor who is not signed in so, with no sign-out button', async () => {
    const t = testAuth({ providers: [adaProvider()] });
    const page = await (await t.client.get('/auth/signout?callbackUrl=%2Fbye')).text();
    expect(text(page)).toContain('You are not signed in');
    expect(forms(page)).toEqual([]);
  });

  it('does not sign out by itself', async () => {
    const t = testAuth({ providers: [adaProvider()] });
    await signIn(t);
    const res = await t.client.get('/auth/signout');
    expect(cookiesNamed(res, SESSION_COOKIE)).toEqual([]);
    expect((await (await t.client.get('/auth/session')).json()).user.email).toBe(ADA.email);
  });

  it('redirects to pages.signOut with the callbackUrl', async () => {
    const t = testAuth({ providers: [adaProvider()], pages });
    const res = await t.client.get('/auth/signout?callbackUrl=%2Fbye');
    expect(res.location?.pathname).toBe('/logout');
    expect(res.location?.searchParams.get('callbackUrl')).toBe(`${ORIGIN}/bye`);
  });
});

describe('POST /signout', () => {
  it('clears the session cookie, fires signOut with the token, and redirects to callbackUrl', async () => {
    const events: { token?: JWT | null }[] = [];
    const t = testAuth({ providers: [adaProvider()], events: { signOut: (m) => void events.push(m) } });
    await signIn(t);
    const csrfToken = await t.csrfToken();
    const res = await t.client.post('/auth/signout', { csrfToken, callbackUrl: '/bye' });
    expect(res.status).toBe(302);
    expect(res.location?.href).toBe(`${ORIGIN}/bye`);
    expect(sessionClears(res).map((c) => c.name)).toEqual([SESSION_COOKIE]);
    expect(events).toHaveLength(1);
    expect(events[0]!.token).toMatchObject({ sub: ADA.id, email: ADA.email });
    expect(await (await t.client.get('/auth/session')).json()).toBeNull();
  });

  it('clears every chunk of a chunked session', async () => {
    const t = testAuth({ providers: [adaProvider()], callbacks: { jwt: ({ token }) => ({ ...token, blob: 'y'.repeat(6000) }) } });
    const signin = await signIn(t);
    const chunks = sessionWrites(signin).map((c) => c.name);
    expect(chunks.length).toBeGreaterThanOrEqual(2);
    const res = await t.client.post('/auth/signout', { csrfToken: await t.csrfToken() });
    expect(sessionClears(res).map((c) => c.name).sort()).toEqual([...chunks].sort());
    expect(sessionToken(t.client)).toBeUndefined();
  });

  it('fires signOut with a null token when nobody was signed in', async () => {
    const events: unknown[] = [];
    const t = testAuth({ providers: [adaProvider()], events: { signOut: (m) => void events.push(m) } });
    const res = await t.client.post('/auth/signout', { csrfToken: await t.csrfToken() });
    expect(res.location?.href).toBe(`${ORIGIN}/`);
    expect(events).toEqual([{ token: null }]);
  });

  it('deletes the database session and fires signOut with it', async () => {
    const adapter = memoryAdapter();
    const events: unknown[] = [];
    const t = testAuth({ providers: [adaProvider()], adapter: adapter as unknown as Adapter, events: { signOut: (m) => void events.push(m) } });
    await signIn(t);
    expect(adapter.sessions.size).toBe(1);
    const res = await t.client.post('/auth/signout', { csrfToken: await t.csrfToken() });
    expect(adapter.sessions.size).toBe(0);
    expect(sessionClears(res).map((c) => c.name)).toEqual([SESSION_COOKIE]);
    expect(events).toEqual([{ session: expect.objectContaining({ userId: expect.any(String) }) }]);
  });
});

describe('GET /providers', () => {
  it('lists id, name, type, signinUrl and callbackUrl of each provider', async () => {
    const t = testAuth({ providers: [adaProvider(), adaProvider({ id: 'staff', name: 'Staff login' })] });
    const res = await t.client.get('/auth/providers');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      credentials: { id: 'credentials', name: 'Credentials', type: 'credentials', signinUrl: `${ORIGIN}/auth/signin/credentials`, callbackUrl: `${ORIGIN}/auth/callback/credentials` },
      staff: { id: 'staff', name: 'Staff login', type: 'credentials', signinUrl: `${ORIGIN}/auth/signin/staff`, callbackUrl: `${ORIGIN}/auth/callback/staff` },
    });
  });

  it('follows a custom basePath', async () => {
    const t = testAuth({ providers: [adaProvider()], basePath: '/api/login' });
    const body = await (await t.client.get('/api/login/providers')).json();
    expect(body.credentials.callbackUrl).toBe(`${ORIGIN}/api/login/callback/credentials`);
  });
});
