// JWT sessions ended elsewhere (issue 19): "sign out everywhere" and "end the other sessions" set the user's
// "sessions valid after" time (PostgresAdapter on PGlite); every other token is refused from then on (the session gate
// compares it on every read), and an ended token cannot keep itself alive by ending the others.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Credentials } from '../../src/providers/credentials.js';
import { testAuth, type TestAuth } from '../support/auth-app.js';
import type { TestClient } from '../support/client.js';
import { useMigratedPGlite } from '../support/pglite.js';

const pglite = useMigratedPGlite();
const UPDATE_AGE = 60;
let serial = 0;
const unique = (who: string) => `${who}-${++serial}-${process.pid}@example.test`;

const provider = Credentials({ credentials: { email: { label: 'Email' } }, authorize: (c) => ({ id: String(c.email), email: String(c.email) }) });

function app(): TestAuth {
  return testAuth({ adapter: pglite.adapter, session: { strategy: 'jwt', updateAge: UPDATE_AGE }, providers: [provider] });
}

async function signIn(t: TestAuth, client: TestClient, email: string): Promise<void> {
  const csrfToken = await t.csrfToken(client);
  expect((await client.post('/auth/callback/credentials', { csrfToken, email })).status).toBe(302);
}

const revoke = async (t: TestAuth, client: TestClient, scope: 'others' | 'all') =>
  client.post('/auth/sessions/revoke', { csrfToken: await t.csrfToken(client), scope });
const email = async (client: TestClient) => ((await (await client.get('/auth/session')).json()) as { user?: { email?: string } } | null)?.user?.email ?? null;
const later = (seconds: number) => vi.setSystemTime(Date.now() + seconds * 1000);

describe('JWT sessions: sign out everywhere', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['Date'], now: Date.UTC(2026, 10, 23, 12, 0, 0, 250) }));
  afterEach(() => vi.useRealTimers());

  it('ends the other sessions at once; this one and the other users go on', async () => {
    const t = app();
    const ada = unique('ada');
    const bob = unique('bob');
    const [laptop, phone, bobs] = [t.newClient(), t.newClient(), t.newClient()];
    await signIn(t, laptop, ada);
    await signIn(t, phone, ada);
    await signIn(t, bobs, bob);
    later(1);
    const res = await revoke(t, laptop, 'others');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ revoked: 0 });
    // The time is kept until every token that began before it has expired (jwt.maxAge, 30 days), then pruned.
    const { rows } = await pglite.db.query<{ valid_after: Date; keep_until: Date }>('SELECT valid_after, keep_until FROM sessions_valid_after WHERE user_id = $1', [ada]);
    expect(rows[0].keep_until.getTime() - rows[0].valid_after.getTime()).toBe(30 * 86_400_000);
    // Refused at once, not only at its next refresh: every read goes through the gate.
    expect(await email(phone)).toBeNull();
    later(UPDATE_AGE + 1);
    expect(await email(phone)).toBeNull();
    expect(await email(laptop)).toBe(ada);
    expect(await email(bobs)).toBe(bob);
    // A new sign-in after the cut-off is not touched by it.
    await signIn(t, phone, ada);
    later(UPDATE_AGE + 1);
    expect(await email(phone)).toBe(ada);
  });

  it('sign out everywhere clears this cookie and ends every other token of the user at once', async () => {
    const t = app();
    const ada = unique('ada');
    const [laptop, phone] = [t.newClient(), t.newClient()];
    await signIn(t, laptop, ada);
    await signIn(t, phone, ada);
    later(1);
    const res = await revoke(t, laptop, 'all');
    expect(await res.json()).toEqual({ revoked: 0 });
    expect(res.headers.get('set-cookie')).toMatch(/authchart\.session-token=;/);
    expect(await email(laptop)).toBeNull();
    expect(await email(phone)).toBeNull();
    later(UPDATE_AGE + 1);
    expect(await email(phone)).toBeNull();
  });

  it('an ended token cannot keep itself alive by ending the others before its refresh', async () => {
    const t = app();
    const ada = unique('ada');
    const [owner, thief] = [t.newClient(), t.newClient()];
    await signIn(t, owner, ada);
    await signIn(t, thief, ada);
    later(1);
    await revoke(t, owner, 'others');
    later(1);
    // The thief's token has not been refreshed yet, but its session began before the cut-off.
    const res = await revoke(t, thief, 'others');
    expect(res.status).toBe(401);
    later(UPDATE_AGE + 1);
    expect(await email(thief)).toBeNull();
    expect(await email(owner)).toBe(ada);
  });

  it('an update (unstable_update) of an ended token is refused too', async () => {
    const t = app();
    const ada = unique('ada');
    const [owner, other] = [t.newClient(), t.newClient()];
    await signIn(t, owner, ada);
    await signIn(t, other, ada);
    later(1);
    await revoke(t, owner, 'others');
    const res = await other.post('/auth/session', JSON.stringify({ csrfToken: await t.csrfToken(other), data: { name: 'x' } }), { json: true });
    expect(await res.json()).toBeNull();
  });

  it('JWT sessions without an adapter say plainly that they cannot be ended', async () => {
    const t = testAuth({ session: { strategy: 'jwt' }, providers: [provider] });
    await signIn(t, t.client, unique('ada'));
    const res = await revoke(t, t.client, 'others');
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'UnsupportedStrategy' });
  });
});
