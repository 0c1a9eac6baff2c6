import { createServer, type IncomingMessage, type Server as NodeServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { H3, serve } from 'h3';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { AuthError, CredentialsSignin } from '../../src/core/errors.js';
import type { AuthConfig } from '../../src/core/options.js';
import { AuthInit } from '../../src/http/integrations/fetch.js';
import { createAuthHandler, createAuthMiddleware } from '../../src/http/integrations/h3.js';
import { ServerAuth, toWebRequest } from '../../src/http/integrations/node.js';
import { getSession, requireSession } from '../../src/http/integrations/session-helpers.js';
import { recordingLogger, TEST_SECRET } from '../support/auth-app.js';
import { createClient, type TestClient } from '../support/client.js';
import { ADA, adaProvider, cookiesNamed, CSRF_COOKIE, PASSWORD, SESSION_COOKIE, sessionClears, sessionWrites } from './helpers.js';

function baseConfig(overrides: Partial<AuthConfig> = {}): AuthConfig {
  return { providers: [adaProvider()], secret: TEST_SECRET, trustHost: true, logger: recordingLogger(), ...overrides };
}

/** Signs a client in through `{basePath}/callback/credentials`. */
async function signInWith(client: TestClient, basePath: string, fields: Record<string, string> = {}) {
  const { csrfToken } = (await (await client.get(`${basePath}/csrf`)).json()) as { csrfToken: string };
  return client.post(`${basePath}/callback/credentials`, { csrfToken, email: ADA.email, password: PASSWORD, ...fields });
}

function listen(server: NodeServer): Promise<string> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

describe('createAuthHandler in an H3 app over a real socket', () => {
  const config = baseConfig();
  const guarded = baseConfig({ callbacks: { authorized: ({ auth }) => !!auth } });
  const teapot = baseConfig({ callbacks: { authorized: ({ auth }) => (auth ? true : new Response('no tea for you', { status: 418 })) } });
  const open = baseConfig({ callbacks: { authorized: () => true } });
  const redirecting = baseConfig({ callbacks: { authorized: ({ auth }) => (auth ? true : Response.redirect('http://127.0.0.1/elsewhere', 307)) } });
  let server: ReturnType<typeof serve>;
  let baseUrl: string;

  beforeAll(async () => {
    const app = new H3();
    app.all('/auth/**', createAuthHandler(config));
    app.use('/dashboard/**', createAuthMiddleware(guarded));
    app.use('/tea/**', createAuthMiddleware(teapot));
    app.use('/moved/**', createAuthMiddleware(redirecting));
    app.use('/open/**', createAuthMiddleware(open));
    app.get('/open/page', () => ({ page: 'open' }));
    app.get('/me', async (event) => (await getSession(event, config)) ?? { signedIn: false });
    app.get('/private', async (event) => {
      const session = await requireSession(event, config);
      return { email: session.user?.email };
    });
    app.get('/dashboard/home', () => ({ page: 'dashboard' }));
    app.get('/tea/pot', () => ({ page: 'tea' }));
    app.get('/moved/here', () => ({ page: 'moved' }));
    server = serve(app, { port: 0, hostname: '127.0.0.1', silent: true });
    await server.ready();
    baseUrl = server.url!.replace(/\/$/, '');
  });

  afterAll(async () => {
    await server.close(true);
  });

  it('signs in with credentials and reads the session in another route with getSession', async () => {
    const client = createClient({ baseUrl });
    expect(await (await client.get('/me')).json()).toEqual({ signedIn: false });
    const res = await signInWith(client, '/auth', { callbackUrl: '/me' });
    expect(res.status).toBe(302);
    expect(res.location?.href).toBe(`${baseUrl}/me`);
    expect(sessionWrites(res)).toHaveLength(1);
    expect(await (await client.get('/me')).json()).toMatchObject({ user: { name: ADA.name, email: ADA.email } });
    expect(await (await client.get('/auth/session')).json()).toMatchObject({ user: { email: ADA.email } });
  });

  it('answers requireSession with 401 without a session and the session with one', async () => {
    const client = createClient({ baseUrl });
    expect((await client.get('/private')).status).toBe(401);
    await signInWith(client, '/auth');
    const res = await client.get('/private');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ email: ADA.email });
  });

  it('clears a bad session cookie on the 401 of requireSession', async () => {
    const client = createClient({ baseUrl });
    client.cookies.set(SESSION_COOKIE, 'garbage', new URL(baseUrl));
    const res = await client.get('/private');
    expect(res.status).toBe(401);
    expect(sessionClears(res).map((c) => c.name)).toEqual([SESSION_COOKIE]);
  });

  it('middleware that lets a request through forwards its cookie changes to the route response', async () => {
    const client = createClient({ baseUrl });
    client.cookies.set(SESSION_COOKIE, 'garbage', new URL(baseUrl));
    const res = await client.get('/open/page');
    expect(await res.json()).toEqual({ page: 'open' });
    expect(sessionClears(res).map((c) => c.name)).toEqual([SESSION_COOKIE]);
    client.cookies.set(SESSION_COOKIE, 'garbage', new URL(baseUrl));
    const missing = await client.get('/open/missing');
    expect(missing.status).toBe(404);
    expect(sessionClears(missing).map((c) => c.name)).toEqual([SESSION_COOKIE]);
  });

  it('forwards the cookie refresh getSession produced onto the route response', async () => {
    const client = createClient({ baseUrl });
    client.cookies.set(SESSION_COOKIE, 'garbage', new URL(baseUrl));
    const res = await client.get('/me');
    expect(await res.json()).toEqual({ signedIn: false });
    expect(sessionClears(res).map((c) => c.name)).toEqual([SESSION_COOKIE]);
  });

  it('serves the auth routes with the real fetch too (CSRF refused without a token)', async () => {
    const res = await fetch(`${baseUrl}/auth/callback/credentials`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email: ADA.email, password: PASSWORD }),
    });
    expect(res.status).toBe(302);
    expect(new URL(res.headers.get('location')!).searchParams.get('error')).toBe('MissingCSRF');
    expect(res.headers.getSetCookie().some((l) => l.startsWith(SESSION_COOKIE))).toBe(false);
  });

  it('middleware redirects a signed-out visitor to sign-in with the callbackUrl', async () => {
    const client = createClient({ baseUrl });
    const res = await client.get('/dashboard/home?tab=1');
    expect(res.status).toBe(302);
    expect(res.location?.href.startsWith(`${baseUrl}/auth/signin?`)).toBe(true);
    expect(res.location?.searchParams.get('callbackUrl')).toBe(`${baseUrl}/dashboard/home?tab=1`);
  });

  it('middleware lets a signed-in visitor through', async () => {
    const client = createClient({ baseUrl });
    await signInWith(client, '/auth');
    const res = await client.get('/dashboard/home');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ page: 'dashboard' });
  });

  it('middleware answers with the Response the authorized callback returned', async () => {
    const client = createClient({ baseUrl });
    const res = await client.get('/tea/pot');
    expect(res.status).toBe(418);
    expect(await res.text()).toBe('no tea for you');
  });

  it('middleware answers with a returned Response.redirect even when it must also clear a bad cookie', async () => {
    const client = createClient({ baseUrl });
    client.cookies.set(SESSION_COOKIE, 'garbage', new URL(baseUrl));
    const res = await client.get('/moved/here');
    expect(res.status).toBe(307);
    expect(res.headers.get('location')).toBe('http://127.0.0.1/elsewhere');
    expect(sessionClears(res).map((c) => c.name)).toEqual([SESSION_COOKIE]);
  });

  it('middleware clears a bad cookie exactly once on a redirect to sign-in', async () => {
    const client = createClient({ baseUrl });
    client.cookies.set(SESSION_COOKIE, 'garbage', new URL(baseUrl));
    const res = await client.get('/dashboard/home');
    expect(res.status).toBe(302);
    expect(sessionClears(res).map((c) => c.name)).toEqual([SESSION_COOKIE]);
  });
});

/** An Express-like server: `app.use('/auth', ServerAuth(config))` rewrites req.url and keeps originalUrl. */
function expressLike(config: AuthConfig, options: { bodyParser?: boolean } = {}) {
  const auth = ServerAuth(config);
  return createServer(async (req: IncomingMessage & { originalUrl?: string; body?: unknown }, res: ServerResponse) => {
    const fail = (err: unknown) => {
      res.statusCode = 599;
      res.end(String(err));
    };
    try {
      if (options.bodyParser && req.method === 'POST') {
        // What express.urlencoded() / express.json() do before any route runs.
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        const text = Buffer.concat(chunks).toString('utf8');
        const type = req.headers['content-type'] ?? '';
        req.body = type.includes('json') ? JSON.parse(text) : Object.fromEntries(new URLSearchParams(text));
      }
      const next = async (err?: unknown) => {
        if (err) return fail(err);
        req.url = req.originalUrl ?? req.url;
        if (req.url?.startsWith('/echo') && !options.bodyParser) {
          // A POST route that reads the session first and its own body after: the body must still be there.
          const session = await getSession(req, config);
          const chunks: Buffer[] = [];
          for await (const chunk of req) chunks.push(chunk as Buffer);
          res.setHeader('content-type', 'application/json');
          res.end(JSON.stringify({ email: session?.user?.email ?? null, body: Buffer.concat(chunks).toString('utf8') }));
          return;
        }
        if (req.url?.startsWith('/me')) {
          // Passing `res` lets a refreshed or cleared session cookie reach the browser.
          const session = await getSession(req, config, res);
          res.setHeader('content-type', 'application/json');
          res.end(JSON.stringify(session ?? { signedIn: false }));
          return;
        }
        res.statusCode = 404;
        res.end('not found');
      };
      if (req.url === '/auth' || req.url?.startsWith('/auth/')) {
        req.originalUrl = req.url;
        req.url = req.url.slice('/auth'.length) || '/';
        await auth(req, res, next);
      } else {
        await next();
      }
    } catch (err) {
      fail(err);
    }
  });
}

describe('ServerAuth in a Node (Express-style) server', () => {
  const config = baseConfig();
  const parsed = baseConfig({
    callbacks: { jwt: ({ token, trigger, session }) => (trigger === 'update' ? { ...token, name: (session as { name: string }).name } : token) },
  });
  let plain: NodeServer;
  let withParser: NodeServer;
  let plainUrl: string;
  let parserUrl: string;

  beforeAll(async () => {
    plain = expressLike(config);
    withParser = expressLike(parsed, { bodyParser: true });
    plainUrl = await listen(plain);
    parserUrl = await listen(withParser);
  });

  afterAll(async () => {
    plain.closeAllConnections();
    withParser.closeAllConnections();
    await Promise.all([new Promise((r) => plain.close(r)), new Promise((r) => withParser.close(r))]);
  });

  it('signs in under the mount path and getSession(req) reads the session', async () => {
    const client = createClient({ baseUrl: plainUrl });
    const res = await signInWith(client, '/auth', { callbackUrl: '/me' });
    expect(res.status).toBe(302);
    expect(res.location?.href).toBe(`${plainUrl}/me`);
    expect(await (await client.get('/me')).json()).toMatchObject({ user: { email: ADA.email } });
  });

  it('getSession(req, config, res) clears a bad session cookie on the app response', async () => {
    const client = createClient({ baseUrl: plainUrl });
    client.cookies.set('authchart.session-token', 'not-a-token', new URL(plainUrl).host, { path: '/' });
    const res = await client.get('/me');
    expect(await res.json()).toEqual({ signedIn: false });
    expect(res.setCookie.some((l) => l.startsWith('authchart.session-token=;') && /max-age=0/i.test(l))).toBe(true);
    expect(client.cookies.get('authchart.session-token')).toBeUndefined();
  });

  it('passes requests outside basePath on to next()', async () => {
    const client = createClient({ baseUrl: plainUrl });
    expect(await (await client.get('/me')).json()).toEqual({ signedIn: false });
    expect((await client.get('/elsewhere')).status).toBe(404);
  });

  it('keeps every Set-Cookie line', async () => {
    const client = createClient({ baseUrl: plainUrl });
    const res = await signInWith(client, '/auth', { callbackUrl: '/me' });
    // callback-url and session cookies arrive as separate lines
    expect(res.setCookie.length).toBeGreaterThanOrEqual(2);
    expect(cookiesNamed(res, SESSION_COOKIE)).toHaveLength(1);
  });

  it('reads a form body an earlier body-parser already consumed', async () => {
    const client = createClient({ baseUrl: parserUrl });
    const res = await signInWith(client, '/auth', { callbackUrl: '/me' });
    expect(res.location?.href).toBe(`${parserUrl}/me`);
    expect(await (await client.get('/me')).json()).toMatchObject({ user: { email: ADA.email } });
  });

  it('reads a JSON body an earlier body-parser already consumed', async () => {
    const client = createClient({ baseUrl: parserUrl });
    await signInWith(client, '/auth');
    const { csrfToken } = await (await client.get('/auth/csrf')).json();
    const res = await client.post('/auth/session', JSON.stringify({ csrfToken, data: { name: 'Countess' } }), { json: true });
    expect(res.status).toBe(200);
    expect((await res.json()).user.name).toBe('Countess');
  });

  it('getSession(req) in a POST route leaves the request body for the route to read', async () => {
    const client = createClient({ baseUrl: plainUrl });
    await signInWith(client, '/auth');
    const res = await client.post('/echo', { note: 'kept' });
    expect(await res.json()).toEqual({ email: ADA.email, body: 'note=kept' });
  });

  it('still refuses a consumed body without the CSRF token', async () => {
    const client = createClient({ baseUrl: parserUrl });
    await client.get('/auth/csrf');
    const res = await client.post('/auth/callback/credentials', { email: ADA.email, password: PASSWORD });
    expect(res.location?.searchParams.get('error')).toBe('MissingCSRF');
  });
});

describe('toWebRequest', () => {
  const nodeRequest = (fields: Record<string, unknown>) =>
    ({ method: 'GET', url: '/session', headers: { host: 'app.test', cookie: 'a=1' }, socket: {}, ...fields }) as unknown as IncomingMessage;

  it('is a Request whose URL keeps the mount point from originalUrl, and whose headers are the Node ones', () => {
    const request = toWebRequest(nodeRequest({ originalUrl: '/auth/session?x=1' }));
    expect(request).toBeInstanceOf(Request);
    expect(request.url).toBe('http://app.test/auth/session?x=1');
    expect(request.headers.get('cookie')).toBe('a=1');
  });

  it('never lets an originalUrl of //host name another host', () => {
    const request = toWebRequest(nodeRequest({ originalUrl: '//evil.test/auth/session' }));
    const url = new URL(request.url);
    expect(url.host).toBe('app.test');
    expect(url.pathname).toBe('//evil.test/auth/session');
  });

  it('gives a POST whose stream a parser consumed, with nothing parsed, an empty body rather than an error', async () => {
    const request = toWebRequest(nodeRequest({ method: 'POST', readableEnded: true, headers: { host: 'app.test', 'content-type': 'application/x-www-form-urlencoded' } }));
    expect(request.method).toBe('POST');
    expect(await request.text()).toBe('');
  });
});

describe('AuthInit (fetch handlers)', () => {
  const ORIGIN = 'http://localhost:3000';
  const config = baseConfig({
    callbacks: {
      authorized: ({ auth }) => !!auth,
      jwt: ({ token, trigger, session }) => (trigger === 'update' ? { ...token, name: (session as { user?: { name?: string } }).user?.name ?? token.name } : token),
    },
  });
  const { handlers, auth, middleware, signIn, signOut, unstable_update } = AuthInit(config);
  const browser = () => createClient({ fetch: (r) => (r.method === 'GET' ? handlers.GET(r) : handlers.POST(r)), baseUrl: ORIGIN });

  /** A request to the app carrying the client's cookies. */
  const appRequest = (client: TestClient, path: string) => new Request(`${ORIGIN}${path}`, { headers: { cookie: client.cookies.header(new URL(ORIGIN)) } });

  async function signedInBrowser(): Promise<TestClient> {
    const client = browser();
    const res = await signInWith(client, '/api/auth');
    expect(sessionWrites(res)).toHaveLength(1);
    return client;
  }

  it('serves GET and POST route handlers under /api/auth', async () => {
    const client = await signedInBrowser();
    expect(await (await client.get('/api/auth/session')).json()).toMatchObject({ user: { email: ADA.email } });
  });

  it('auth() inside a handler auth wrapped resolves to the session', async () => {
    const client = await signedInBrowser();
    const handler = auth(async () => Response.json(await auth()));
    expect(await (await handler(appRequest(client, '/page'))).json()).toMatchObject({ user: { email: ADA.email } });
  });

  it('auth(handler) puts the session on request.auth for an authorized request', async () => {
    const client = await signedInBrowser();
    const handler = auth((request) => Response.json({ email: request.auth?.user?.email }));
    const res = await handler(appRequest(client, '/api/me'));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ email: ADA.email });
  });

  it('auth(handler) redirects to sign-in when authorized answers false', async () => {
    let called = false;
    const handler = auth(() => ((called = true), new Response('secret')));
    const res = await handler(new Request(`${ORIGIN}/admin?x=1`));
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get('location')!);
    expect(location.pathname).toBe('/api/auth/signin');
    expect(location.searchParams.get('callbackUrl')).toBe(`${ORIGIN}/admin?x=1`);
    expect(called).toBe(false);
  });

  it('redirects to sign-in on the public host behind a proxy, with a callbackUrl the redirect callback accepts', async () => {
    const res = await middleware(new Request('http://10.0.0.7:3000/admin?x=1', { headers: { 'x-forwarded-host': 'app.example.com', 'x-forwarded-proto': 'https' } }));
    const location = new URL(res!.headers.get('location')!);
    expect(location.origin).toBe('https://app.example.com');
    expect(location.searchParams.get('callbackUrl')).toBe('https://app.example.com/admin?x=1');
  });

  it('middleware returns nothing for an authorized request and a redirect otherwise', async () => {
    const client = await signedInBrowser();
    expect(await middleware(appRequest(client, '/admin'))).toBeUndefined();
    expect((await middleware(new Request(`${ORIGIN}/admin`)))?.status).toBe(302);
  });

  it('signIn("credentials", {redirect: false}) returns the URL and hands a session cookie to responseHeaders', async () => {
    const headers = new Headers();
    const url = await signIn('credentials', { request: new Request(`${ORIGIN}/login`), responseHeaders: headers, email: ADA.email, password: PASSWORD, redirectTo: '/dashboard', redirect: false });
    expect(url).toBe(`${ORIGIN}/dashboard`);
    const session = headers.getSetCookie().find((l) => l.startsWith(`${SESSION_COOKIE}=`));
    expect(session).toBeDefined();
    // The cookie is a working session.
    const cookie = session!.split(';')[0]!;
    expect(await getSession(new Request(`${ORIGIN}/`, { headers: { cookie } }), config)).toMatchObject({ user: { email: ADA.email } });
  });

  it('signIn("credentials") redirects by default', async () => {
    const res = await signIn('credentials', { request: new Request(`${ORIGIN}/login`), email: ADA.email, password: PASSWORD, redirectTo: '/dashboard' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`${ORIGIN}/dashboard`);
    expect(res.headers.getSetCookie().some((l) => l.startsWith(`${SESSION_COOKIE}=`))).toBe(true);
  });

  it('signIn does not mistake a callbackUrl with ?error= for a failed sign-in', async () => {
    const url = await signIn('credentials', { request: new Request(`${ORIGIN}/login`), email: ADA.email, password: PASSWORD, redirectTo: '/search?error=none', redirect: false });
    expect(url).toBe(`${ORIGIN}/search?error=none`);
  });

  it('signIn works for a browser that already holds a CSRF cookie', async () => {
    const client = browser();
    await client.get('/api/auth/csrf');
    expect(client.cookies.get(CSRF_COOKIE)).toBeDefined();
    const headers = new Headers();
    await signIn('credentials', { request: appRequest(client, '/login'), responseHeaders: headers, email: ADA.email, password: PASSWORD, redirect: false });
    expect(headers.getSetCookie().some((l) => l.startsWith(`${SESSION_COOKIE}=`))).toBe(true);
  });

  it('signIn with wrong credentials throws a CredentialsSignin AuthError', async () => {
    const attempt = signIn('credentials', { request: new Request(`${ORIGIN}/login`), email: ADA.email, password: 'wrong', redirect: false });
    await expect(attempt).rejects.toBeInstanceOf(AuthError);
    await expect(attempt).rejects.toMatchObject({ type: 'CredentialsSignin', code: 'credentials' });
  });

  it("signIn carries a CredentialsSignin subclass's code onto the thrown error", async () => {
    class Locked extends CredentialsSignin {
      override code = 'locked';
    }
    const { signIn: lockedSignIn } = AuthInit(
      baseConfig({
        providers: [
          adaProvider({
            authorize: () => {
              throw new Locked();
            },
          }),
        ],
      }),
    );
    const attempt = lockedSignIn('credentials', { request: new Request(`${ORIGIN}/login`), email: ADA.email, password: PASSWORD, redirect: false });
    await expect(attempt).rejects.toMatchObject({ type: 'CredentialsSignin', code: 'locked' });
    await expect(attempt).rejects.toBeInstanceOf(CredentialsSignin);
  });

  it('signIn without a provider points at the sign-in page', async () => {
    const url = await signIn(undefined, { request: new Request(`${ORIGIN}/x`), redirectTo: '/after', redirect: false });
    expect(url).toBe(`${ORIGIN}/api/auth/signin?callbackUrl=%2Fafter`);
  });

  it('signOut({request}) clears the session cookie and redirects', async () => {
    const client = await signedInBrowser();
    const res = await signOut({ request: appRequest(client, '/account'), redirectTo: '/bye' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`${ORIGIN}/bye`);
    expect(res.headers.getSetCookie().some((l) => l.startsWith(`${SESSION_COOKIE}=;`) && /Max-Age=0/i.test(l))).toBe(true);
  });

  it('signOut({redirect: false}) returns the URL', async () => {
    const client = await signedInBrowser();
    const url = await signOut({ request: appRequest(client, '/account'), redirect: false });
    expect(url).toBe(`${ORIGIN}/account`);
  });

  it('unstable_update(request, data) runs the jwt update and returns the new session', async () => {
    const client = await signedInBrowser();
    const session = await unstable_update(appRequest(client, '/profile'), { user: { name: 'Countess' } });
    expect(session).toMatchObject({ user: { name: 'Countess', email: ADA.email } });
  });

  it('unstable_update hands the re-issued session cookie to the response being built, so the update sticks', async () => {
    const client = await signedInBrowser();
    const headers = new Headers();
    await unstable_update(appRequest(client, '/profile'), { user: { name: 'Duchess' } }, headers);
    const lines = headers.getSetCookie();
    expect(lines.some((l) => l.startsWith('authchart.session-token='))).toBe(true);
    // The browser stores what the app's response carried; its next read shows the update.
    client.cookies.setFromLines(new URL(ORIGIN), lines);
    expect(await (await client.get('/api/auth/session')).json()).toMatchObject({ user: { name: 'Duchess' } });
  });
});

describe('AuthInit lazy configuration', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('resolves the configuration per request', async () => {
    const calls: (string | undefined)[] = [];
    const config = baseConfig();
    const { handlers } = AuthInit((request) => (calls.push(request?.url), config));
    await handlers.GET(new Request('http://localhost:3000/api/auth/providers'));
    await handlers.GET(new Request('http://localhost:3000/api/auth/csrf'));
    expect(calls).toEqual(['http://localhost:3000/api/auth/providers', 'http://localhost:3000/api/auth/csrf']);
  });
});
