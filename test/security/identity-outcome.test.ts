// A custom flow that names an existing user (`existingUser: true`) and claims how it verified them (`amr`): the user
// must exist (a made-up id is AccountNotLinked and creates nobody), the signIn callback still decides, and only known
// method names are recorded (an unknown one fails the flow, no session).
import { setup } from 'xstate';
import { describe, expect, it } from 'vitest';
import { type AuthConfig } from '../../src/index.js';
import { baseContext, defineFlow, type FlowInput, type FlowOutput } from '../../src/flow.js';
import { testAuth } from '../support/auth-app.js';
import { useMigratedPGlite } from '../support/pglite.js';

const pglite = useMigratedPGlite();

// Signs in whoever the form names, with the amr the form names: only a test flow would trust the form like this.
const machine = setup({ types: { input: {} as FlowInput, output: {} as FlowOutput, events: {} as { type: 'GO'; userId: string; amr: string; existing: string } } }).createMachine({
  id: 'named',
  initial: 'idle',
  context: ({ input }) => baseContext(input),
  output: ({ event }) => (event as unknown as { output: FlowOutput }).output,
  states: {
    idle: { on: { GO: 'named' } },
    named: {
      type: 'final',
      output: ({ event }) => {
        const e = event as unknown as { userId: string; amr: string; existing: string };
        return {
          outcome: 'authenticated',
          ...(e.existing === 'no' ? {} : { existingUser: (e.existing === 'yes' ? true : e.existing) as true }),
          user: { id: e.userId, email: e.existing === 'no' ? `${e.userId}@example.test` : undefined },
          account: { provider: 'named', type: 'named', providerAccountId: e.userId },
          ...(e.amr ? { amr: e.amr.split(',') as never } : {}),
        };
      },
    },
  },
});
const flow = defineFlow({
  machine,
  version: 1,
  entry: (route, deps) => {
    if (route !== 'signin') return null;
    const f = (k: string) => String(deps.req.body[k] ?? '');
    return { resume: false, event: { type: 'GO', userId: f('userId'), amr: f('amr'), existing: f('existing') || 'yes' } };
  },
});

function app(config: Partial<AuthConfig> = {}) {
  return testAuth({ adapter: pglite.adapter, session: { strategy: 'database' }, providers: [{ id: 'named', name: 'Named', type: 'custom', flow } as never], ...config });
}
const count = async (sql: string) => (await pglite.db.query<{ n: number }>(sql)).rows[0].n;

async function signIn(t: ReturnType<typeof app>, body: Record<string, string>) {
  const res = await t.client.post('/auth/signin/named', { csrfToken: await t.csrfToken(), ...body });
  return { location: res.headers.get('location') ?? '', session: t.client.cookies.get('authchart.session-token') };
}

describe('identity outcomes', () => {
  it('signs in the existing user the flow names, with the amr it claims', async () => {
    const user = await pglite.adapter.createUser({ id: 'u-ada', email: 'ada@example.test', emailVerified: null });
    const t = app();
    const { location, session } = await signIn(t, { userId: user.id, amr: 'hwk,otp' });
    expect(location).not.toMatch(/error=/);
    expect(session).toBeTruthy();
    const row = (await pglite.db.query<{ user_id: string; amr: string }>(`SELECT user_id, amr FROM sessions ORDER BY created_at DESC LIMIT 1`)).rows[0];
    expect(row.user_id).toBe('u-ada');
    expect(row.amr).toMatch(/hwk/);
    expect(row.amr).toMatch(/otp/);
    // Nothing linked: the flow named the user, it did not bring an account to store.
    expect(await count(`SELECT count(*)::int AS n FROM accounts WHERE provider = 'named'`)).toBe(0);
    const res = await t.client.get('/auth/session');
    expect(((await res.json()) as { user?: { email?: string } }).user?.email).toBe('ada@example.test');
  });

  it('refuses an id with no user as AccountNotLinked, and creates nobody', async () => {
    const users = await count(`SELECT count(*)::int AS n FROM users`);
    const { location, session } = await signIn(app(), { userId: 'u-nobody' });
    expect(location).toMatch(/error=AccountNotLinked/);
    expect(session).toBeUndefined();
    expect(await count(`SELECT count(*)::int AS n FROM users`)).toBe(users);
  });

  it('still asks the signIn callback, with the stored user', async () => {
    await pglite.adapter.createUser({ id: 'u-bob', email: 'bob@example.test', emailVerified: null });
    const seen: unknown[] = [];
    const t = app({ callbacks: { signIn: ({ user }) => (seen.push(user), false) } });
    const { location, session } = await signIn(t, { userId: 'u-bob' });
    expect(location).toMatch(/error=AccessDenied/);
    expect(session).toBeUndefined();
    expect(seen).toMatchObject([{ id: 'u-bob', email: 'bob@example.test' }]);
  });

  it('fails a flow whose amr or existingUser is malformed, without a session', async () => {
    await pglite.adapter.createUser({ id: 'u-cy', email: 'cy@example.test', emailVerified: null });
    for (const body of [{ amr: 'magic' }, { amr: 'pwd,magic' }, { amr: ',' }, { existing: 'sure' }] as Record<string, string>[]) {
      const t = app();
      const { location, session } = await signIn(t, { userId: 'u-cy', ...body });
      expect(location, JSON.stringify(body)).toMatch(/error=Configuration/);
      expect(session, JSON.stringify(body)).toBeUndefined();
    }
  });

  it('without existingUser a custom flow is recorded as oauth, as before', async () => {
    const t = app();
    const { session } = await signIn(t, { userId: 'u-new', existing: 'no' });
    expect(session).toBeTruthy();
    const row = (await pglite.db.query<{ amr: string }>(`SELECT s.amr FROM sessions s JOIN accounts a ON a.user_id = s.user_id WHERE a.provider_account_id = 'u-new'`)).rows[0];
    expect(row.amr).toMatch(/oauth/);
  });
});
