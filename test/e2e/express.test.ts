// A real Express 5 app with authchart mounted as users mount it: a body parser before ServerAuth and one after it,
// `trust proxy` behind a TLS-terminating proxy, getSession(req, config, res) on routes and a guard that redirects
// when signed out. Signed in with credentials and with a real OpenID Provider, over HTTP.
import { createServer, type Server } from 'node:http';
import express, { type NextFunction, type Request as ExpressRequest, type Response as ExpressResponse } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getSession, type AuthConfig, type Session } from '../../src/index.js';
import { ServerAuth } from '../../src/node.js';
import { Credentials, OIDC } from '../../src/providers/index.js';
import { recordingLogger, TEST_SECRET } from '../support/auth-app.js';
import { createClient, type FetchLike, type TestClient } from '../support/client.js';
import { csrfTokenOf, sessionOf, signInWithCredentials, signInWithOidc } from '../support/signin-over-http.js';
import { closeHttpServer, freePort, listenLoopback, LOOPBACK } from './peers/net.js';
import { startOidcProvider, type OidcProviderHarness } from './peers/oidc.js';

const ADA = { email: 'ada@example.test', password: 'analytical-engine' };
const SECURE_SESSION = '__Secure-authchart.session-token';

let op: OidcProviderHarness;
let server: Server;
let port: number;
/** The origin the browser sees: https, served by the proxy in front of the app. */
let publicOrigin: string;
const logger = recordingLogger();

/** The app, as a user writes it. */
function expressApp(config: AuthConfig) {
  const app = express();
  // The TLS-terminating proxy runs on this machine: Express believes its X-Forwarded-* headers (spec section 4.1).
  app.set('trust proxy', 'loopback');
  // A parser before authchart reads every form body first, authchart's own included.
  app.use(express.urlencoded({ extended: false }));
  app.use('/auth', ServerAuth(config));
  // A parser after authchart, for the app's JSON routes.
  app.use(express.json());

  /** The guard: signed out, the browser goes to sign-in and comes back; signed in, the session is in res.locals. */
  async function signedIn(req: ExpressRequest, res: ExpressResponse, next: NextFunction) {
    const session = await getSession(req, config, res);
    if (!session?.user) return res.redirect(`/auth/signin?callbackUrl=${encodeURIComponent(req.originalUrl)}`);
    res.locals.session = session;
    next();
  }

  app.get('/me', async (req, res) => {
    const session = await getSession(req, config, res);
    res.json({ session, protocol: req.protocol, secure: req.secure });
  });
  app.get('/dashboard', signedIn, (_req, res) => {
    res.type('html').send(`<h1>Hello, ${(res.locals.session as Session).user?.name}</h1>`);
  });
  app.post('/notes', signedIn, (req, res) => {
    res.json({ by: (res.locals.session as Session).user?.email, note: req.body as unknown });
  });
  return app;
}

/**
 * The proxy in front of the app, as the browser's fetch: https://127.0.0.1:PORT goes to the app over plain http
 * with X-Forwarded-Proto and X-Forwarded-For added, as a TLS-terminating proxy forwards it.
 */
const throughProxy: FetchLike = async (request) => {
  const url = new URL(request.url);
  if (url.origin !== publicOrigin) return fetch(request, { redirect: 'manual' });
  const headers = new Headers(request.headers);
  headers.set('x-forwarded-proto', 'https');
  headers.set('x-forwarded-for', '203.0.113.7');
  const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.arrayBuffer();
  return fetch(`http://${LOOPBACK}:${port}${url.pathname}${url.search}`, { method: request.method, headers, body, redirect: 'manual' });
};

const browser = (): TestClient => createClient({ baseUrl: publicOrigin, fetch: throughProxy });

beforeAll(async () => {
  port = await freePort();
  publicOrigin = `https://${LOOPBACK}:${port}`;
  op = await startOidcProvider({ redirectUris: [`${publicOrigin}/auth/callback/oidc`] });
  const config: AuthConfig = {
    secret: TEST_SECRET,
    trustHost: true,
    logger,
    providers: [
      Credentials({
        credentials: { email: {}, password: {} },
        authorize: async ({ email, password }) => (email === ADA.email && password === ADA.password ? { id: 'ada', name: 'Ada Lovelace', email: ADA.email } : null),
      }),
      OIDC({ id: 'oidc', name: 'Company SSO', issuer: op.issuer, clientId: op.clientId, clientSecret: op.clientSecret }),
    ],
  };
  server = createServer(expressApp(config));
  await listenLoopback(server, port);
});
afterAll(async () => {
  await closeHttpServer(server);
  await op?.stop();
});

describe('authchart in an Express 5 app behind a TLS-terminating proxy', () => {
  it('sees the request as https, as Express does under trust proxy', async () => {
    const res = await browser().get('/me');
    expect(await res.json()).toEqual({ session: null, protocol: 'https', secure: true });
  });

  it('guards a page: signed out, the browser is sent to sign-in and told to come back', async () => {
    const res = await browser().get('/dashboard?tab=1');
    expect(res.status).toBe(302);
    expect(res.location?.pathname).toBe('/auth/signin');
    expect(res.location?.searchParams.get('callbackUrl')).toBe('/dashboard?tab=1');
  });

  it('signs in with credentials through the parser mounted before it: secure cookies, back on the page', async () => {
    const client = browser();
    const res = await signInWithCredentials(client, ADA, `${publicOrigin}/dashboard`);
    expect(res.status).toBe(302);
    expect(res.location?.href).toBe(`${publicOrigin}/dashboard`);
    expect(res.setCookie.find((line) => line.startsWith(`${SECURE_SESSION}=`))).toMatch(/; Secure/);
    expect(await (await client.get('/dashboard')).text()).toBe('<h1>Hello, Ada Lovelace</h1>');
    expect(await (await client.get('/me')).json()).toMatchObject({ session: { user: { email: ADA.email } } });
  });

  it('refuses a wrong password and a missing CSRF token, parser or not', async () => {
    const client = browser();
    const wrong = await signInWithCredentials(client, { ...ADA, password: 'difference-engine' }, `${publicOrigin}/dashboard`);
    expect(wrong.location?.searchParams.get('error')).toBe('CredentialsSignin');
    const forged = await client.post('/auth/callback/credentials', { ...ADA, callbackUrl: `${publicOrigin}/dashboard` });
    expect(forged.location?.searchParams.get('error')).toBe('MissingCSRF');
    expect(await sessionOf(client)).toBeNull();
  });

  it('leaves the app its own bodies: the JSON parser after authchart still parses them', async () => {
    const client = browser();
    await signInWithCredentials(client, ADA, `${publicOrigin}/`);
    const res = await client.post('/notes', { text: 'remember the engine' }, { json: true });
    expect(await res.json()).toEqual({ by: ADA.email, note: { text: 'remember the engine' } });
  });

  it('signs in with the OpenID Provider: an https redirect_uri, back on the page, then signs out', async () => {
    const client = browser();
    const { start, callback } = await signInWithOidc(client, op, 'alice', `${publicOrigin}/dashboard`);
    expect(start.location?.searchParams.get('redirect_uri')).toBe(`${publicOrigin}/auth/callback/oidc`);
    expect(callback.status).toBe(302);
    expect(callback.location?.href).toBe(`${publicOrigin}/dashboard`);
    expect(callback.setCookie.some((line) => line.startsWith(`${SECURE_SESSION}=`))).toBe(true);
    expect(await (await client.get('/dashboard')).text()).toBe('<h1>Hello, Alice Liddell</h1>');

    await client.post('/auth/signout', { csrfToken: await csrfTokenOf(client), callbackUrl: `${publicOrigin}/` });
    expect((await client.get('/dashboard')).status).toBe(302);
  });

  it('logged only the refusals', () => {
    expect(logger.errorTypes().sort()).toEqual(['CredentialsSignin', 'MissingCSRF']);
  });
});
