// The h3-style session helpers (getUserSession, requireUserSession, clearUserSession, updateUserSession) in a real
// H3 app over a socket, under both session strategies (database sessions in PGlite).
import { H3, readBody, redirect, serve } from 'h3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthConfig } from '../../src/core/options.js';
import type { JWT, Session } from '../../src/core/types.js';
import { clearUserSession, getUserSession, requireUserSession, updateUserSession } from '../../src/index.js';
import { createAuthHandler } from '../../src/http/integrations/h3.js';
import { recordingLogger, TEST_SECRET, type RecordingLogger } from '../support/auth-app.js';
import { createClient, type TestClient } from '../support/client.js';
import { useMigratedPGlite } from '../support/pglite.js';
import { ADA, adaProvider, PASSWORD, SESSION_COOKIE, sessionClears, sessionWrites } from './helpers.js';
import { storedSessionToken } from '../../src/session/session-token.js';

interface Harness {
  config: AuthConfig;
  logger: RecordingLogger;
  signOuts: unknown[];
  baseUrl: string;
  close(): Promise<void>;
}

/** An H3 app with authchart at /auth and routes that use each helper. */
async function startApp(config: AuthConfig, logger: RecordingLogger, signOuts: unknown[]): Promise<Harness> {
  const app = new H3();
  app.all('/auth/**', createAuthHandler(config));
  app.get('/api/me', async (event) => ({ session: await getUserSession(event, config) }));
  app.get('/api/orders', async (event) => {
    const { user } = await requireUserSession(event, config, { message: 'Orders need a signed-in user.' });
    return { orders: [], for: user?.email };
  });
  app.get('/account', async (event) => {
    const session = await requireUserSession(event, config, { redirect: true });
    return `account of ${session.user?.name}`;
  });
  app.get('/billing', async (event) => {
    await requireUserSession(event, config, { redirect: '/login' });
    return 'billing';
  });
  app.post('/logout', async (event) => {
    await clearUserSession(event, config);
    return redirect('/');
  });
  app.post('/api/profile', async (event) => {
    const { name } = (await readBody<{ name: string }>(event))!;
    return { session: await updateUserSession(event, config, { user: { name } }) };
  });
  const server = serve(app, { port: 0, hostname: '127.0.0.1', silent: true });
  await server.ready();
  return { config, logger, signOuts, baseUrl: server.url!.replace(/\/$/, ''), close: () => server.close(true) };
}

const me = async (client: TestClient) => ((await (await client.get('/api/me')).json()) as { session: Session | null }).session;

/** The assertions both strategies share; `signIn` puts a session in the client's jar. */
function sharedBehaviour(h: () => Harness, signIn: (client: TestClient) => Promise<void>) {
  it('getUserSession: null signed out, the session signed in', async () => {
    const client = createClient({ baseUrl: h().baseUrl });
    expect(await me(client)).toBeNull();
    await signIn(client);
    expect(await me(client)).toMatchObject({ user: { email: ADA.email, name: ADA.name } });
  });

  it('requireUserSession: a 401 HTTPError for an API route, the session once signed in', async () => {
    const client = createClient({ baseUrl: h().baseUrl });
    const refused = await client.get('/api/orders');
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ status: 401, message: 'Orders need a signed-in user.' });
    await signIn(client);
    const res = await client.get('/api/orders');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ orders: [], for: ADA.email });
  });

  it('requireUserSession({ redirect: true }): a 302 to the sign-in page that comes back to the page', async () => {
    const { baseUrl } = h();
    const client = createClient({ baseUrl });
    const res = await client.get('/account?tab=keys');
    expect(res.status).toBe(302);
    expect(res.location!.origin + res.location!.pathname).toBe(`${baseUrl}/auth/signin`);
    expect(res.location!.searchParams.get('callbackUrl')).toBe(`${baseUrl}/account?tab=keys`);
    // The redirect target is the real sign-in page.
    expect((await client.get(res.location!)).status).toBe(200);
    const other = await client.get('/billing');
    expect(other.status).toBe(302);
    expect(other.location!.href).toBe(`${baseUrl}/login`);
    await signIn(client);
    const page = await client.get('/account?tab=keys');
    expect(page.status).toBe(200);
    expect(await page.text()).toBe(`account of ${ADA.name}`);
  });

  it('requireUserSession clears a forged session cookie on its redirect', async () => {
    const { baseUrl } = h();
    const client = createClient({ baseUrl });
    client.cookies.set(SESSION_COOKIE, 'forged', new URL(baseUrl));
    const res = await client.get('/account');
    expect(res.status).toBe(302);
    expect(sessionClears(res).map((c) => c.name)).toEqual([SESSION_COOKIE]);
  });

  it('clearUserSession: cookie cleared, signOut event, signed out everywhere after', async () => {
    const client = createClient({ baseUrl: h().baseUrl });
    await signIn(client);
    const before = h().signOuts.length;
    const res = await client.post('/logout', {});
    expect(res.status).toBe(302);
    expect(sessionClears(res).map((c) => c.name)).toEqual([SESSION_COOKIE]);
    expect(h().signOuts).toHaveLength(before + 1);
    expect(await me(client)).toBeNull();
    expect(await (await client.get('/auth/session')).json()).toBeNull();
  });

  it('clearUserSession without a session still answers, and fires signOut with nothing to end', async () => {
    const client = createClient({ baseUrl: h().baseUrl });
    const [errors, events] = [h().logger.errors.length, h().signOuts.length];
    const res = await client.post('/logout', {});
    expect(res.status).toBe(302);
    expect(h().logger.errors.slice(errors)).toEqual([]);
    expect(h().signOuts).toHaveLength(events + 1);
  });
}

describe('h3 helpers with JWT sessions', () => {
  const logger = recordingLogger();
  const signOuts: unknown[] = [];
  const updates: { trigger?: string; session?: unknown }[] = [];
  let harness: Harness;
  const config: AuthConfig = {
    providers: [adaProvider()],
    secret: TEST_SECRET,
    trustHost: true,
    logger,
    events: { signOut: (message) => void signOuts.push(message) },
    callbacks: {
      jwt: ({ token, trigger, session }) => {
        if (trigger === 'update') {
          updates.push({ trigger, session });
          const name = (session as { user?: { name?: unknown } } | undefined)?.user?.name;
          if (typeof name === 'string') return { ...token, name } as JWT;
        }
        return token;
      },
    },
  };

  beforeAll(async () => {
    harness = await startApp(config, logger, signOuts);
  });
  afterAll(() => harness.close());

  async function signIn(client: TestClient) {
    const { csrfToken } = (await (await client.get('/auth/csrf')).json()) as { csrfToken: string };
    const res = await client.post('/auth/callback/credentials', { csrfToken, email: ADA.email, password: PASSWORD });
    expect(sessionWrites(res)).toHaveLength(1);
  }

  sharedBehaviour(() => harness, signIn);

  it('clearUserSession hands the signOut event the token it ended', () => {
    expect(signOuts.some((m) => (m as { token?: JWT | null }).token?.email === ADA.email)).toBe(true);
  });

  it('updateUserSession: the jwt callback runs with trigger update, the new cookie carries the change', async () => {
    const client = createClient({ baseUrl: harness.baseUrl });
    await signIn(client);
    const res = await client.post('/api/profile', JSON.stringify({ name: 'Countess of Lovelace' }), { json: true });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ session: { user: { name: 'Countess of Lovelace', email: ADA.email } } });
    expect(sessionWrites(res)).toHaveLength(1);
    expect(updates.at(-1)).toEqual({ trigger: 'update', session: { user: { name: 'Countess of Lovelace' } } });
    // The next request reads the re-issued cookie.
    expect(await me(client)).toMatchObject({ user: { name: 'Countess of Lovelace' } });
  });

  it('updateUserSession signed out: null, and no cookie written', async () => {
    const client = createClient({ baseUrl: harness.baseUrl });
    const res = await client.post('/api/profile', JSON.stringify({ name: 'Mallory' }), { json: true });
    expect(await res.json()).toEqual({ session: null });
    expect(sessionWrites(res)).toHaveLength(0);
  });
});

describe('h3 helpers with database sessions (PGlite)', () => {
  const pg = useMigratedPGlite();
  const logger = recordingLogger();
  const signOuts: unknown[] = [];
  const updates: unknown[] = [];
  let harness: Harness;
  let userId: string;
  let config: AuthConfig;

  beforeAll(async () => {
    const user = await pg.adapter.createUser!({ id: '', email: ADA.email, name: ADA.name, emailVerified: null });
    userId = user.id;
    config = {
      providers: [adaProvider()],
      secret: TEST_SECRET,
      trustHost: true,
      logger,
      adapter: pg.adapter,
      session: { strategy: 'database' },
      events: { signOut: (message) => void signOuts.push(message) },
      callbacks: {
        session: ({ session, newSession, trigger }) => {
          if (trigger !== 'update') return session;
          updates.push(newSession);
          const name = (newSession as { user?: { name?: string } }).user?.name;
          return { ...session, user: { ...session.user, name } };
        },
      },
    };
    harness = await startApp(config, logger, signOuts);
  });
  afterAll(() => harness?.close());

  // Credentials sign-in issues no database session (as in Auth.js): a row is created as an OAuth or e-mail
  // sign-in would, and its token put in the browser's jar.
  async function signIn(client: TestClient) {
    const sessionToken = crypto.randomUUID();
    await pg.adapter.createSession!({ sessionToken: storedSessionToken(sessionToken), userId, expires: new Date(Date.now() + 3600_000) });
    client.cookies.set(SESSION_COOKIE, sessionToken, new URL(harness.baseUrl));
  }

  sharedBehaviour(() => harness, signIn);

  it('clearUserSession deletes the session row and hands it to the signOut event', async () => {
    const client = createClient({ baseUrl: harness.baseUrl });
    await signIn(client);
    const token = client.cookies.get(SESSION_COOKIE)!;
    expect(await pg.adapter.getSessionAndUser!(storedSessionToken(token))).not.toBeNull();
    await client.post('/logout', {});
    expect(await pg.adapter.getSessionAndUser!(storedSessionToken(token))).toBeNull();
    expect(signOuts.at(-1)).toMatchObject({ session: { sessionToken: storedSessionToken(token) } });
  });

  it('updateUserSession: the session callback receives newSession with trigger update', async () => {
    const client = createClient({ baseUrl: harness.baseUrl });
    await signIn(client);
    const res = await client.post('/api/profile', JSON.stringify({ name: 'Countess of Lovelace' }), { json: true });
    expect(await res.json()).toMatchObject({ session: { user: { name: 'Countess of Lovelace', email: ADA.email } } });
    expect(updates.at(-1)).toEqual({ user: { name: 'Countess of Lovelace' } });
    // The row stays; nothing was signed out.
    expect(await pg.adapter.getSessionAndUser!(storedSessionToken(client.cookies.get(SESSION_COOKIE)!))).not.toBeNull();
  });
});
