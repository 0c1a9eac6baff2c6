// A passkey as the second factor, over HTTP (PGlite, a software authenticator): the stage page offers it when the
// user has passkeys and the app a WebAuthn provider; its options are bound to the pending sign-in (this user's
// credentials only); a verified assertion issues the session (amr `hwk`), and the code form keeps working beside it.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AuthConfig } from '../../../src/core/options.js';
import { Credentials } from '../../../src/providers/credentials.js';
import { Passkey } from '../../../src/providers/webauthn.js';
import { testAuth, type TestAuth } from '../../support/auth-app.js';
import type { TestClient } from '../../support/client.js';
import { activeTotp, codeNow, registeredPasskey, setsSession, STAGE_COOKIE } from '../../support/factors.js';
import { useMigratedPGlite } from '../../support/pglite.js';

const pg = useMigratedPGlite();
const PASSWORD = 'pw';
let n = 0;

interface Options {
  rpId: string;
  challenge: string;
  allowCredentials?: { id: string }[];
}

async function user(options: { passkey?: boolean } = {}) {
  const id = `pk-${++n}-${Date.now()}`;
  const email = `${id}@example.com`;
  await pg.adapter.createUser({ id, email, emailVerified: null });
  const key = await activeTotp(pg.adapter, id);
  const device = options.passkey === false ? undefined : await registeredPasskey(pg.adapter, id);
  return { id, email, key, device };
}

function app(options: { webauthn?: boolean } = {}): TestAuth & { events: string[] } {
  const events: string[] = [];
  const providers: AuthConfig['providers'] = [
    Credentials({
      credentials: { email: {}, password: { type: 'password' } },
      authorize: async (c) => {
        const u = c.password === PASSWORD ? await pg.adapter.getUserByEmail(String(c.email)) : null;
        return u ? { id: u.id, email: u.email } : null;
      },
    }),
  ];
  if (options.webauthn !== false) providers.push(Passkey());
  const t = testAuth({
    adapter: pg.adapter,
    session: { strategy: 'jwt' },
    secondFactor: {},
    experimental: { enableWebAuthn: true },
    callbacks: { session: ({ session, token }) => ({ ...session, amr: token?.amr }) },
    events: { signIn: () => void events.push('signIn'), secondFactorFailed: () => void events.push('secondFactorFailed') },
    providers,
  });
  return Object.assign(t, { events });
}

async function password(t: TestAuth, email: string, client: TestClient = t.client) {
  const csrfToken = await t.csrfToken(client);
  const res = await client.post('/auth/callback/credentials', { csrfToken, email, password: PASSWORD, callbackUrl: '/account' });
  return { res, page: await res.text(), csrfToken };
}

const options = async (client: TestClient) => client.get('/auth/second-factor?action=authenticate', { headers: { accept: 'application/json' } });

describe('a passkey as the second factor', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['Date'], now: Date.UTC(2026, 10, 23, 12, 0, 10) }));
  afterEach(() => vi.useRealTimers());

  it('the stage page offers it: a passkey button bound to the stage, and the passkey script with the page nonce', async () => {
    const t = app();
    const u = await user();
    const { res, page } = await password(t, u.email);
    expect(res.status).toBe(200);
    expect(page).toContain('Two-step verification');
    expect(page).toMatch(/<div class="section" data-webauthn data-options-url="http:\/\/localhost:3000\/auth\/second-factor" data-callback-url="http:\/\/localhost:3000\/auth\/second-factor" data-csrf-token="[^"]+"( data-text-[a-z-]+="[^"]*")*>/);
    expect(page).toContain('data-action="authenticate">Use a passkey instead</button>');
    const nonce = /script-src 'nonce-([^']+)'/.exec(res.headers.get('content-security-policy') ?? '')?.[1];
    expect(nonce).toBeTruthy();
    expect(page).toContain(`<script src="http://localhost:3000/auth/webauthn-script.js" nonce="${nonce}" defer></script>`);
  });

  it('not offered to a user without passkeys, nor by an app without a WebAuthn provider; asking anyway is a 400 and the code still works', async () => {
    for (const [t, u] of [
      [app(), await user({ passkey: false })],
      [app({ webauthn: false }), await user()],
    ] as const) {
      const { page, csrfToken } = await password(t, u.email);
      expect(page).toContain('Two-step verification');
      expect(page).not.toContain('data-webauthn');
      const asked = await options(t.client);
      expect(asked.status).toBe(400);
      expect(await asked.json()).toMatchObject({ error: 'InvalidRequest' });
      const res = await t.client.post('/auth/second-factor', { csrfToken, code: codeNow(u.key) });
      expect(setsSession(res)).toBe(true);
    }
  });

  it("options for the pending sign-in list only the user's passkeys; the assertion issues the session (amr hwk)", async () => {
    const t = app();
    const u = await user();
    // Another user's passkey exists too: it must not be offered.
    await registeredPasskey(pg.adapter, (await user()).id);
    const { csrfToken } = await password(t, u.email);
    const asked = await options(t.client);
    expect(asked.status).toBe(200);
    expect(t.client.cookies.get(STAGE_COOKIE)).toBeTruthy();
    const body = (await asked.json()) as { action: string; options: Options };
    expect(body.action).toBe('authenticate');
    expect(body.options.rpId).toBe('localhost');
    expect(body.options.allowCredentials?.map((c) => c.id)).toEqual([u.device!.id]);

    const res = await t.client.post('/auth/second-factor', { csrfToken, action: 'authenticate', data: JSON.stringify(u.device!.authenticate(body.options as never)) });
    expect(res.status).toBe(302);
    expect(res.location?.href).toBe('http://localhost:3000/account');
    expect(setsSession(res)).toBe(true);
    expect(t.events).toEqual(['signIn']);
    const session = (await (await t.client.get('/auth/session')).json()) as { user: { email: string }; amr: string[] };
    expect(session.user.email).toBe(u.email);
    expect(session.amr).toEqual(['pwd', 'hwk']);
    const [row] = (await pg.db.query<{ counter: string }>('SELECT counter FROM authenticators WHERE user_id = $1', [u.id])).rows;
    expect(Number(row.counter)).toBe(1);
  });

  it('after a wrong code the passkey is still offered, and the other way round', async () => {
    const t = app();
    const u = await user();
    const { csrfToken } = await password(t, u.email);
    const wrong = await t.client.post('/auth/second-factor', { csrfToken, code: '000000' === codeNow(u.key) ? '111111' : '000000' });
    expect(await wrong.text()).toContain('data-webauthn');
    const body = (await (await options(t.client)).json()) as { options: Options };
    const bad = await t.client.post('/auth/second-factor', { csrfToken, action: 'authenticate', data: JSON.stringify(u.device!.authenticate(body.options as never, { badSignature: true })) });
    expect(bad.status).toBe(200);
    const again = await bad.text();
    expect(again).toContain('That passkey could not be verified');
    expect(again).toContain('data-webauthn');
    expect(t.events).toEqual(['secondFactorFailed', 'secondFactorFailed']);
    expect(setsSession(await t.client.post('/auth/second-factor', { csrfToken, code: codeNow(u.key) }))).toBe(true);
  });

  it('a passkey that was the first factor is not offered again as the second', async () => {
    const t = app();
    const u = await user();
    const asked = (await (await t.client.get('/auth/webauthn-options/passkey?action=authenticate')).json()) as { options: Options };
    const csrfToken = await t.csrfToken();
    const res = await t.client.post('/auth/callback/passkey', { action: 'authenticate', data: JSON.stringify(u.device!.authenticate(asked.options as never)), csrfToken });
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(page).toContain('Two-step verification');
    expect(page).not.toContain('data-webauthn');
    expect((await options(t.client)).status).toBe(400);
  });
});
