// Every form of `auth`, `signIn`, `signOut` and `unstable_update` from spec section 4.2, on fetch handlers, an h3
// app, Express and a bare Node server: the forms that need the request being answered find it below `auth` used as
// middleware or inside a handler it wrapped, and outside those fail with MissingRequestContext, never a TypeError.
import { AsyncLocalStorage } from 'node:async_hooks';
import { createServer, type Server as NodeServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { H3 } from 'h3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AuthError, MissingRequestContext } from '../../src/core/errors.js';
import type { AuthConfig } from '../../src/core/options.js';
import type { Session } from '../../src/core/types.js';
import { AuthInit, type AuthInitResult } from '../../src/http/integrations/fetch.js';
import { recordingLogger, TEST_SECRET, type RecordingLogger } from '../support/auth-app.js';
import { createClient } from '../support/client.js';
import { parseSetCookie } from '../support/cookie-jar.js';
import { offlineOAuth } from '../support/offline-oauth.js';
import { ADA, adaProvider, PASSWORD, SESSION_COOKIE } from './helpers.js';

const ORIGIN = 'http://localhost:3000';

interface Instance extends AuthInitResult {
  logger: RecordingLogger;
}

/** An AuthInit instance under /api/auth; `updateAge: 0` makes every session read re-issue the cookie. */
function init(overrides: Partial<AuthConfig> = {}): Instance {
  const logger = recordingLogger();
  const config: AuthConfig = { providers: [adaProvider(), offlineOAuth], secret: TEST_SECRET, trustHost: true, logger, ...overrides };
  return { ...AuthInit(config), logger };
}

/** The Cookie header of a browser that signed in through the instance's own routes. */
async function signedInCookie(a: AuthInitResult): Promise<string> {
  const client = createClient({ fetch: (r) => (r.method === 'GET' ? a.handlers.GET(r) : a.handlers.POST(r)), baseUrl: ORIGIN });
  const { csrfToken } = (await (await client.get('/api/auth/csrf')).json()) as { csrfToken: string };
  await client.post('/api/auth/callback/credentials', { csrfToken, email: ADA.email, password: PASSWORD });
  const value = client.cookies.get(SESSION_COOKIE);
  expect(value).toBeDefined();
  return `${SESSION_COOKIE}=${value}`;
}

const page = (path: string, cookie?: string, init: RequestInit = {}) => new Request(`${ORIGIN}${path}`, { ...init, headers: { ...(cookie ? { cookie } : {}), ...(init.headers as Record<string, string>) } });

/** The session cookie lines of a response: `written` carry a value, `cleared` delete it. */
function sessionLines(lines: readonly string[]) {
  const parsed = lines.map((l) => parseSetCookie(l)!).filter((c) => c.name === SESSION_COOKIE);
  return { written: parsed.filter((c) => c.value !== '' && c.maxAge !== 0), cleared: parsed.filter((c) => c.maxAge === 0), all: parsed };
}

function listen(server: NodeServer): Promise<string> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

describe('auth() (the server-component form)', () => {
  const a = init();

  it('outside any request rejects with MissingRequestContext saying how to give it one, not a TypeError', async () => {
    const attempt = a.auth();
    await expect(attempt).rejects.toBeInstanceOf(MissingRequestContext);
    await expect(attempt).rejects.toBeInstanceOf(AuthError);
    await expect(attempt).rejects.toThrow(/app\.use\(auth\)/);
  });

  it('rejects an argument that is no request with the same typed error', async () => {
    await expect(a.auth(42 as never)).rejects.toBeInstanceOf(MissingRequestContext);
    await expect(a.auth(null as never)).rejects.toBeInstanceOf(MissingRequestContext);
    await expect(a.auth({} as never)).rejects.toBeInstanceOf(MissingRequestContext);
  });

  it('inside a handler auth wrapped, reads that request\'s session', async () => {
    const cookie = await signedInCookie(a);
    const handler = a.auth(async () => Response.json(await a.auth()));
    expect(await (await handler(page('/page', cookie))).json()).toMatchObject({ user: { email: ADA.email } });
    expect(await (await handler(page('/page'))).json()).toBeNull();
  });

  it('below auth(request, next), reads the session the middleware already read (once per request)', async () => {
    let reads = 0;
    const counted = init({ callbacks: { session: ({ session }) => (reads++, session) } });
    const cookie = await signedInCookie(counted);
    reads = 0;
    const res = await counted.auth(page('/page', cookie), async () => {
      const [first, second] = [await counted.auth(), await counted.auth()];
      return Response.json({ first, second });
    });
    const body = (await res.json()) as { first: Session; second: Session };
    expect(body.first).toMatchObject({ user: { email: ADA.email } });
    expect(body.second).toEqual(body.first);
    expect(reads).toBe(1);
  });

  it('switches the store off again once no scoped request is in flight (Node 20 hooks every promise while it is on)', async () => {
    const disable = vi.spyOn(AsyncLocalStorage.prototype, 'disable');
    try {
      const handler = a.auth(async () => Response.json(await a.auth()));
      await Promise.all([handler(page('/one')), handler(page('/two'))]);
      expect(disable).toHaveBeenCalledTimes(1);
    } finally {
      disable.mockRestore();
    }
  });

  it('does not leak one request\'s session into another running at the same time', async () => {
    const cookie = await signedInCookie(a);
    const handler = a.auth(async () => {
      await new Promise((r) => setImmediate(r));
      return Response.json(await a.auth());
    });
    const [signedIn, anonymous] = await Promise.all([handler(page('/x', cookie)), handler(page('/x'))]);
    expect(await signedIn.json()).toMatchObject({ user: { email: ADA.email } });
    expect(await anonymous.json()).toBeNull();
  });
});

describe('auth as middleware (fetch)', () => {
  const guarded = init({ callbacks: { authorized: ({ auth }) => !!auth } });
  const fresh = init({ session: { updateAge: 0 } });

  it('auth(request) answers a redirect to sign-in when authorized says no, and undefined to let the request through', async () => {
    const refused = await guarded.auth(page('/admin?x=1'));
    expect(refused).toBeInstanceOf(Response);
    expect(refused!.status).toBe(302);
    const location = new URL(refused!.headers.get('location')!);
    expect(location.pathname).toBe('/api/auth/signin');
    expect(location.searchParams.get('callbackUrl')).toBe(`${ORIGIN}/admin?x=1`);
    expect(await guarded.auth(page('/admin', await signedInCookie(guarded)))).toBeUndefined();
  });

  it('auth(request, next) runs next with the request known and puts the refreshed session cookie on its response', async () => {
    const cookie = await signedInCookie(fresh);
    const res = await fresh.auth(page('/page', cookie), async (request) => new Response(`${new URL(request.url).pathname} ${(await fresh.auth())?.user?.email}`));
    expect(await res.text()).toBe(`/page ${ADA.email}`);
    expect(sessionLines(res.headers.getSetCookie()).written).toHaveLength(1);
  });

  it('auth(request, next) answers the verdict without running next', async () => {
    let ran = false;
    const res = await guarded.auth(page('/admin'), () => ((ran = true), new Response('secret')));
    expect(res.status).toBe(302);
    expect(ran).toBe(false);
  });
});

describe('auth(handler) when the handler returns nothing while a session cookie is pending', () => {
  const fresh = init({ session: { updateAge: 0 } });

  it('lets the request through (undefined) instead of throwing, and says the cookie could not be sent', async () => {
    const cookie = await signedInCookie(fresh);
    const handler = fresh.auth(() => undefined);
    await expect(handler(page('/page', cookie))).resolves.toBeUndefined();
    expect(fresh.logger.warnings).toContain('session-cookie-dropped');
  });

  it('hands the pending cookie to an enclosing auth middleware, whose response carries it', async () => {
    const cookie = await signedInCookie(fresh);
    const inner = fresh.auth(() => undefined);
    const res = await fresh.auth(page('/page', cookie), async (request) => ((await inner(request)) ?? new Response('through')));
    expect(await res.text()).toBe('through');
    // One refresh from the middleware, one from the inner read: both reach the browser, the last one wins.
    expect(sessionLines(res.headers.getSetCookie()).written.length).toBeGreaterThanOrEqual(1);
  });
});

describe('signOut, unstable_update and signIn inside a request', () => {
  const a = init({
    callbacks: { jwt: ({ token, trigger, session }) => (trigger === 'update' ? { ...token, name: (session as { user?: { name?: string } }).user?.name ?? token.name } : token) },
  });

  it('signOut({ redirect: false }) returns the URL of the current page and the response clears the session cookie', async () => {
    const cookie = await signedInCookie(a);
    let url: unknown;
    const handler = a.auth(async () => {
      url = await a.signOut({ redirect: false });
      return Response.json({ after: await a.auth() });
    });
    const res = await handler(page('/account?tab=2', cookie));
    expect(url).toBe(`${ORIGIN}/account?tab=2`);
    expect(await res.json()).toEqual({ after: null });
    expect(sessionLines(res.headers.getSetCookie()).cleared).toHaveLength(1);
  });

  it('signOut() redirects to the current page by default, and redirectTo overrides it', async () => {
    const cookie = await signedInCookie(a);
    const res = await a.auth(() => a.signOut())(page('/account', cookie));
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`${ORIGIN}/account`);
    expect(sessionLines(res.headers.getSetCookie()).cleared).toHaveLength(1);
    const elsewhere = await a.auth(() => a.signOut({ redirectTo: '/bye' }))(page('/account', cookie));
    expect(elsewhere.headers.get('location')).toBe(`${ORIGIN}/bye`);
  });

  it('unstable_update(data) with one argument updates the session, and the response carries the re-issued cookie', async () => {
    const cookie = await signedInCookie(a);
    const handler = a.auth(async () => {
      const updated = await a.unstable_update({ user: { name: 'Countess' } });
      return Response.json({ updated, read: await a.auth() });
    });
    const res = await handler(page('/profile', cookie));
    const body = (await res.json()) as { updated: Session; read: Session };
    expect(body.updated).toMatchObject({ user: { name: 'Countess', email: ADA.email } });
    expect(body.read).toEqual(body.updated);
    const [written] = sessionLines(res.headers.getSetCookie()).written;
    expect(written).toBeDefined();
    // The browser's next request shows the update.
    expect(await (await a.auth(async () => Response.json(await a.auth()))(page('/', `${SESSION_COOKIE}=${written!.value}`))).json()).toMatchObject({ user: { name: 'Countess' } });
  });

  it('signIn(provider, options) without options.request returns to the current page and the response carries the session', async () => {
    let url: unknown;
    const handler = a.auth(async () => {
      url = await a.signIn('credentials', { email: ADA.email, password: PASSWORD, redirect: false });
      return new Response('ok');
    });
    const res = await handler(page('/login?next=1'));
    expect(url).toBe(`${ORIGIN}/login?next=1`);
    expect(sessionLines(res.headers.getSetCookie()).written).toHaveLength(1);
  });

  it('signIn for an OAuth provider returns the authorization URL and the response carries the flow cookie', async () => {
    const res = await a.auth(() => a.signIn('acme'))(page('/shop'));
    expect(res.status).toBe(302);
    expect(new URL(res.headers.get('location')!).origin).toBe('https://acme.test');
    expect(res.headers.getSetCookie().filter((l) => l.startsWith('authchart.flow.acme='))).toHaveLength(1);
  });

  it('signIn() without a provider points at the sign-in page with the current page as callbackUrl', async () => {
    const url = await a.auth(async () => new Response(await a.signIn(undefined, { redirect: false })))(page('/cart'));
    expect(new URL(await url.text()).searchParams.get('callbackUrl')).toBe(`${ORIGIN}/cart`);
  });

  it('outside a request: signOut() and unstable_update(data) reject with MissingRequestContext; signIn without redirectTo too', async () => {
    await expect(a.signOut({ redirect: false })).rejects.toBeInstanceOf(MissingRequestContext);
    await expect(a.unstable_update({ user: { name: 'x' } })).rejects.toBeInstanceOf(MissingRequestContext);
    await expect(a.signIn('credentials', { email: ADA.email, password: PASSWORD, redirect: false })).rejects.toBeInstanceOf(MissingRequestContext);
  });

  it('outside a request with { request, responseHeaders }: the URL is returned and the cookies land in the headers', async () => {
    const headers = new Headers();
    const url = await a.signIn('credentials', { request: page('/login'), responseHeaders: headers, email: ADA.email, password: PASSWORD, redirect: false });
    expect(url).toBe(`${ORIGIN}/login`);
    expect(sessionLines(headers.getSetCookie()).written).toHaveLength(1);
  });
});

describe('auth on Node: auth(req, res), auth({ req, res }) and Express app.use(auth)', () => {
  const a = init({ session: { updateAge: 0 }, callbacks: { authorized: ({ request, auth }) => !new URL(request.url).pathname.startsWith('/private') || !!auth } });
  let bare: NodeServer;
  let bareUrl: string;
  let app: NodeServer;
  let appUrl: string;

  beforeAll(async () => {
    bare = createServer((req, res) => {
      void (async () => {
        // An API route, and server-side page props (Next's getServerSideProps context is { req, res, ... }).
        const session = req.url === '/api' ? await a.auth(req, res) : await a.auth({ req, res });
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(session));
      })();
    });
    bareUrl = await listen(bare);
    const ex = express();
    ex.use(express.json());
    ex.use(a.auth);
    ex.get('/me', async (_req, res) => void res.json(await a.auth()));
    ex.get('/private/page', async (_req, res) => void res.json({ page: 'private' }));
    ex.post('/rename', async (req, res) => void res.json(await a.unstable_update({ user: { name: (req.body as { name: string }).name } })));
    ex.post('/logout', async (_req, res) => void res.json({ url: await a.signOut({ redirect: false }) }));
    app = ex.listen(0, '127.0.0.1');
    await new Promise((r) => app.once('listening', r));
    appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((r) => bare.close(r));
    await new Promise((r) => app.close(r));
  });

  for (const path of ['/api', '/props']) {
    it(`${path === '/api' ? 'auth(req, res)' : 'auth({ req, res })'} returns the session and writes the refreshed cookie to res`, async () => {
      const cookie = await signedInCookie(a);
      const res = await fetch(`${bareUrl}${path}`, { headers: { cookie } });
      expect(await res.json()).toMatchObject({ user: { email: ADA.email } });
      expect(sessionLines(res.headers.getSetCookie()).written).toHaveLength(1);
    });

    it(`${path === '/api' ? 'auth(req, res)' : 'auth({ req, res })'} clears a session cookie that does not open, and returns null`, async () => {
      const res = await fetch(`${bareUrl}${path}`, { headers: { cookie: `${SESSION_COOKIE}=garbage` } });
      expect(await res.json()).toBeNull();
      expect(sessionLines(res.headers.getSetCookie()).cleared).toHaveLength(1);
    });
  }

  it('app.use(auth) in Express: auth() in a route reads the session, whose refreshed cookie reaches the browser', async () => {
    const cookie = await signedInCookie(a);
    const res = await fetch(`${appUrl}/me`, { headers: { cookie } });
    expect(await res.json()).toMatchObject({ user: { email: ADA.email } });
    expect(sessionLines(res.headers.getSetCookie()).written).toHaveLength(1);
    expect(await (await fetch(`${appUrl}/me`)).json()).toBeNull();
  });

  it('app.use(auth) in Express sends the authorized verdict', async () => {
    const res = await fetch(`${appUrl}/private/page`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(new URL(res.headers.get('location')!).pathname).toBe('/api/auth/signin');
  });

  it('unstable_update(data) and signOut() in Express routes write their cookies to res', async () => {
    const cookie = await signedInCookie(a);
    const renamed = await fetch(`${appUrl}/rename`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Duchess' }) });
    expect(await renamed.json()).toMatchObject({ user: { email: ADA.email } });
    expect(sessionLines(renamed.headers.getSetCookie()).written.length).toBeGreaterThanOrEqual(1);
    const out = await fetch(`${appUrl}/logout`, { method: 'POST', headers: { cookie } });
    expect(await out.json()).toEqual({ url: `${appUrl}/logout` });
    expect(sessionLines(out.headers.getSetCookie()).cleared).toHaveLength(1);
  });
});

describe('auth as h3 middleware: app.use(auth)', () => {
  const a = init({ session: { updateAge: 0 }, callbacks: { authorized: ({ request, auth }) => !new URL(request.url).pathname.startsWith('/private') || !!auth } });
  const app = new H3();
  app.use(a.auth);
  app.get('/me', async () => ({ session: await a.auth() }));
  app.get('/raw', async () => Response.json(await a.auth()));
  app.get('/private/page', () => ({ page: 'private' }));

  it('auth() in a route reads the session, and the refreshed cookie is sent once', async () => {
    const cookie = await signedInCookie(a);
    for (const path of ['/me', '/raw']) {
      const res = await app.fetch(page(path, cookie));
      expect(JSON.stringify(await res.json())).toContain(ADA.email);
      expect(sessionLines(res.headers.getSetCookie()).all).toHaveLength(1);
    }
  });

  it('a refused request gets the verdict', async () => {
    const res = await app.fetch(page('/private/page'));
    expect(res.status).toBe(302);
    expect(new URL(res.headers.get('location')!).pathname).toBe('/api/auth/signin');
  });
});
