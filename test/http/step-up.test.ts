// Step-up over HTTP in an H3 app: requireRecentSignIn lets a recently verified session through, sends a stale one
// through the factor check (or a full sign-in when the user has no factor) and back to the same URL; checkRecentSignIn
// answers the same for a web Request. JWT and database sessions (PGlite).
import { H3 } from 'h3';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AuthConfig } from '../../src/core/options.js';
import { checkRecentSignIn, requireRecentSignIn } from '../../src/index.js';
import { createAuthHandler } from '../../src/http/integrations/h3.js';
import { Credentials } from '../../src/providers/credentials.js';
import { sealFactorKey } from '../../src/flows/second-factor/secret-box.js';
import { newTotpKey, totpCode, totpStep } from '../../src/flows/second-factor/totp.js';
import { recordingLogger, TEST_SECRET } from '../support/auth-app.js';
import { createClient, type TestClient } from '../support/client.js';
import { useMigratedPGlite } from '../support/pglite.js';

const pg = useMigratedPGlite();
const ORIGIN = 'http://localhost:3000';
let n = 0;

interface World {
  config: AuthConfig;
  client: TestClient;
  email: string;
  key: Uint8Array;
}

async function world(options: { strategy?: 'jwt' | 'database'; factor?: boolean; secondFactor?: boolean } = {}): Promise<World> {
  const userId = `s-${++n}-${Date.now()}`;
  const email = `${userId}@example.com`;
  await pg.adapter.createUser({ id: userId, email, emailVerified: null });
  const key = newTotpKey();
  if (options.factor) {
    await pg.adapter.createFactor({ id: `f-${userId}`, userId, kind: 'totp', secret: sealFactorKey([TEST_SECRET], key), createdAt: new Date(), activatedAt: new Date(), lastStep: null });
  }
  const config: AuthConfig = {
    secret: TEST_SECRET,
    trustHost: true,
    logger: recordingLogger(),
    adapter: pg.adapter,
    session: { strategy: options.strategy ?? 'jwt' },
    ...(options.secondFactor === false ? {} : { secondFactor: {} }),
    providers: [Credentials({ credentials: { email: {}, password: {} }, authorize: (c) => (c.password === 'pw' ? { id: userId, email } : null) })],
  };
  const app = new H3();
  app.all('/auth/**', createAuthHandler(config));
  app.get('/settings', async (event) => {
    const session = await requireRecentSignIn(event, config, { maxAge: 300 });
    return `settings of ${session.user?.email}`;
  });
  const client = createClient({ fetch: (r) => Promise.resolve(app.fetch(r)), baseUrl: ORIGIN });
  return { config, client, email, key };
}

const code = (w: World) => totpCode(w.key, totpStep(Date.now()));

async function csrf(w: World): Promise<string> {
  return ((await (await w.client.get('/auth/csrf')).json()) as { csrfToken: string }).csrfToken;
}

/** Signs in with the password, and the code when the stage asks for one. */
async function signIn(w: World): Promise<void> {
  const csrfToken = await csrf(w);
  const res = await w.client.post('/auth/callback/credentials', { csrfToken, email: w.email, password: 'pw' });
  if (res.status === 200) expect((await w.client.post('/auth/second-factor', { csrfToken, code: code(w) })).status).toBe(302);
  else expect(res.status).toBe(302);
}

describe('requireRecentSignIn', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['Date'], now: Date.UTC(2026, 10, 23, 12, 0, 10) }));
  afterEach(() => vi.useRealTimers());

  it('signed out: to the sign-in page, coming back to the same URL', async () => {
    const w = await world();
    const res = await w.client.get('/settings?tab=email');
    expect(res.status).toBe(302);
    expect(res.location?.pathname).toBe('/auth/signin');
    expect(res.location?.searchParams.get('callbackUrl')).toBe(`${ORIGIN}/settings?tab=email`);
  });

  for (const strategy of ['jwt', 'database'] as const) {
    it(`${strategy}: recent passes; stale goes through the factor check and back; a wrong code asks again`, async () => {
      const w = await world({ strategy, factor: true });
      await signIn(w);
      expect(await (await w.client.get('/settings')).text()).toBe(`settings of ${w.email}`);

      vi.setSystemTime(Date.now() + 301_000);
      const stale = await w.client.get('/settings?tab=email');
      expect(stale.status).toBe(302);
      expect(stale.location?.pathname).toBe('/auth/factors/verify');
      expect(stale.location?.searchParams.get('callbackUrl')).toBe(`${ORIGIN}/settings?tab=email`);
      const form = await w.client.get(stale.location!);
      expect(form.status).toBe(200);
      expect(await form.text()).toContain('Confirm it is you');
      const csrfToken = await csrf(w);
      const wrong = await w.client.post('/auth/factors/code', { csrfToken, code: code(w) === '000000' ? '111111' : '000000' });
      expect(await wrong.text()).toContain('That code did not match');
      const back = await w.client.post('/auth/factors/code', { csrfToken, code: code(w) });
      expect(back.headers.get('location')).toBe(`${ORIGIN}/settings?tab=email`);
      expect(await (await w.client.get('/settings?tab=email')).text()).toBe(`settings of ${w.email}`);

      const recent = await checkRecentSignIn(new Request(`${ORIGIN}/x`, { headers: { cookie: w.client.cookies.header(new URL(ORIGIN)) } }), w.config, { maxAge: 300 });
      expect(recent).toMatchObject({ ok: true, amr: ['pwd', 'otp'] });
      expect((recent as { authTime: Date }).authTime.getTime()).toBe(Math.floor(Date.now() / 1000) * 1000);
    });
  }

  it('a user without a factor is sent to sign in again, and the new session is recent', async () => {
    const w = await world();
    await signIn(w);
    vi.setSystemTime(Date.now() + 301_000);
    const check = await w.client.get((await w.client.get('/settings')).location!);
    expect(check.location?.pathname).toBe('/auth/signin');
    expect(check.location?.searchParams.get('callbackUrl')).toBe(`${ORIGIN}/settings`);
    await signIn(w);
    expect((await w.client.get('/settings')).status).toBe(200);
  });

  it('without secondFactor configured, a stale session goes straight to the sign-in page', async () => {
    const w = await world({ secondFactor: false });
    await signIn(w);
    vi.setSystemTime(Date.now() + 301_000);
    const res = await w.client.get('/settings');
    expect(res.location?.pathname).toBe('/auth/signin');
    const recent = await checkRecentSignIn(new Request(`${ORIGIN}/settings`, { headers: { cookie: w.client.cookies.header(new URL(ORIGIN)) } }), w.config, { maxAge: 300 });
    expect(recent).toMatchObject({ ok: false, reason: 'stale' });
  });

  it('the check returns only to this site: a foreign callbackUrl becomes the home page', async () => {
    const w = await world({ factor: true });
    await signIn(w);
    await w.client.get('/auth/factors/verify?callbackUrl=https://evil.example/steal');
    const back = await w.client.post('/auth/factors/code', { csrfToken: await csrf(w), code: totpCode(w.key, totpStep(Date.now()) + 1) });
    expect(back.status).toBe(302);
    expect(back.location?.origin).toBe(ORIGIN);
  });
});
