// Session control on database sessions (PGlite): GET {basePath}/sessions lists the signed-in user's devices, and
// POST {basePath}/sessions/revoke (CSRF) ends one, the others, or all ("sign out everywhere").
import { describe, expect, it } from 'vitest';
import type { AuthConfig } from '../../src/core/options.js';
import { Credentials } from '../../src/providers/credentials.js';
import { testAuth, type TestAuth } from '../support/auth-app.js';
import type { TestClient } from '../support/client.js';
import { useMigratedPGlite } from '../support/pglite.js';

const pglite = useMigratedPGlite();
const SESSION_COOKIE = 'authchart.session-token';
let serial = 0;
const unique = (who: string) => `${who}-${++serial}-${process.pid}@example.test`;

const provider = Credentials({ credentials: { email: { label: 'Email' } }, authorize: (c) => ({ id: String(c.email), email: String(c.email) }) });

function app(config: Partial<AuthConfig> = {}): TestAuth {
  return testAuth({ adapter: pglite.adapter, session: { strategy: 'database' }, providers: [provider], ...config });
}

async function signIn(t: TestAuth, client: TestClient, email: string, agent: string): Promise<void> {
  const csrfToken = await t.csrfToken(client);
  const res = await client.post('/auth/callback/credentials', { csrfToken, email }, { headers: { 'user-agent': agent } });
  expect(res.status).toBe(302);
}

type Listed = { sessions: { id: string; current: boolean; userAgent: string | null; createdAt: string | null; expires: string }[] };
const list = async (client: TestClient) => {
  const res = await client.get('/auth/sessions');
  return { status: res.status, body: (await res.json()) as Listed };
};
const revoke = async (t: TestAuth, client: TestClient, fields: Record<string, string>) =>
  client.post('/auth/sessions/revoke', { csrfToken: await t.csrfToken(client), ...fields });
const signedIn = async (client: TestClient) => ((await (await client.get('/auth/session')).json()) as unknown) !== null;

describe('session control', () => {
  it('lists the user own sessions with their browser and time, marks the current one, and never shows a cookie', async () => {
    const t = app();
    const email = unique('ada');
    const laptop = t.newClient();
    const phone = t.newClient();
    await signIn(t, laptop, email, 'Laptop Firefox');
    await signIn(t, phone, email, 'Phone Safari');
    await signIn(t, t.newClient(), unique('someone-else'), 'Other');
    const { status, body } = await list(laptop);
    expect(status).toBe(200);
    expect(body.sessions.map((s) => s.userAgent).sort()).toEqual(['Laptop Firefox', 'Phone Safari']);
    expect(body.sessions.filter((s) => s.current).map((s) => s.userAgent)).toEqual(['Laptop Firefox']);
    expect(body.sessions.every((s) => s.createdAt && s.expires)).toBe(true);
    const cookies = [laptop, phone].map((c) => c.cookies.get(SESSION_COOKIE)!);
    for (const cookie of cookies) expect(JSON.stringify(body)).not.toContain(cookie);
  });

  it('ends another device: its next request has no session, this one keeps its own', async () => {
    const t = app();
    const email = unique('ada');
    const laptop = t.newClient();
    const phone = t.newClient();
    await signIn(t, laptop, email, 'Laptop');
    await signIn(t, phone, email, 'Phone');
    const phoneId = (await list(laptop)).body.sessions.find((s) => s.userAgent === 'Phone')!.id;
    const res = await revoke(t, laptop, { id: phoneId });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ revoked: 1 });
    expect(await signedIn(phone)).toBe(false);
    expect(await signedIn(laptop)).toBe(true);
  });

  it('cannot end another user session, whatever id it sends', async () => {
    const t = app();
    const mallory = t.newClient();
    const victim = t.newClient();
    await signIn(t, mallory, unique('mallory'), 'M');
    await signIn(t, victim, unique('victim'), 'V');
    const victimId = (await list(victim)).body.sessions[0]!.id;
    const res = await revoke(t, mallory, { id: victimId });
    expect(await res.json()).toEqual({ revoked: 0 });
    expect(await signedIn(victim)).toBe(true);
  });

  it('ends every other session (after a password change), or every one: sign out everywhere', async () => {
    const t = app();
    const email = unique('ada');
    const [a, b, c] = [t.newClient(), t.newClient(), t.newClient()];
    for (const [client, agent] of [[a, 'A'], [b, 'B'], [c, 'C']] as const) await signIn(t, client, email, agent);
    expect(await (await revoke(t, a, { scope: 'others' })).json()).toEqual({ revoked: 2 });
    expect([await signedIn(a), await signedIn(b), await signedIn(c)]).toEqual([true, false, false]);
    await signIn(t, b, email, 'B again');
    const everywhere = await revoke(t, a, { scope: 'all' });
    expect(await everywhere.json()).toEqual({ revoked: 2 });
    expect(everywhere.headers.get('set-cookie')).toMatch(/authchart\.session-token=;/);
    expect([await signedIn(a), await signedIn(b)]).toEqual([false, false]);
  });

  it('needs the CSRF token to end anything, and a session to list or end', async () => {
    const t = app();
    const client = t.newClient();
    await signIn(t, client, unique('ada'), 'A');
    const forged = await client.post('/auth/sessions/revoke', { scope: 'all' });
    expect(forged.status).toBe(400);
    expect(await signedIn(client)).toBe(true);
    const stranger = t.newClient();
    expect((await stranger.get('/auth/sessions')).status).toBe(401);
    expect((await revoke(t, stranger, { scope: 'all' })).status).toBe(401);
    expect((await revoke(t, client, { scope: 'sideways' })).status).toBe(400);
  });

  it('says plainly that JWT sessions cannot be listed', async () => {
    const t = app({ session: { strategy: 'jwt' } });
    const res = await t.client.get('/auth/sessions');
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'UnsupportedStrategy' });
  });
});
