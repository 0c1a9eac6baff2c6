// The account type a custom flow ends with picks the linking rules of the standard tail, as docs/custom-flows.md says:
// `email` (the flow proved the address) signs the address's owner in; any other type links like OAuth.
import { baseContext, defineFlow, type FlowInput, type FlowOutput } from 'authchart/flow';
import { describe, expect, it } from 'vitest';
import { setup } from 'xstate';
import { testAuth } from '../../support/auth-app.js';
import { useMigratedPGlite } from '../../support/pglite.js';

const pg = useMigratedPGlite();

/** Signs in at once as `email`, with an account of `type`. */
function provenFlow(type: string) {
  const machine = setup({ types: { input: {} as FlowInput, output: {} as FlowOutput, events: {} as { type: 'GO'; email: string } } }).createMachine({
    id: `proven-${type}`,
    initial: 'idle',
    context: ({ input }) => baseContext(input),
    output: ({ event }) => (event as unknown as { output: FlowOutput }).output,
    states: {
      idle: { on: { GO: { target: 'done', actions: ({ context, event }) => void Object.assign(context, { email: event.email }) } } },
      done: {
        type: 'final',
        output: ({ context }) => {
          const email = (context as { email?: string }).email!;
          return { outcome: 'authenticated' as const, user: { email }, account: { provider: 'p', type, providerAccountId: email } };
        },
      },
    },
  });
  const email = (body: Record<string, unknown>) => String(body.email ?? '');
  return defineFlow({ machine, version: 1, entry: (route, deps) => (route === 'signin' ? { resume: false, event: { type: 'GO', email: email(deps.req.body) } } : null) });
}

async function signIn(type: string, address: string) {
  const t = testAuth({ adapter: pg.adapter, providers: [{ id: `proven-${type}`, name: 'Proven', type: `proven-${type}`, flow: provenFlow(type) }] });
  const res = await t.client.post(`/auth/signin/proven-${type}`, { csrfToken: await t.csrfToken(), email: address });
  const session = (await (await t.client.get('/auth/session')).json()) as { user?: { id?: string; email?: string } } | null;
  return { res, session, t };
}

describe('a custom flow picks the linking rules by its account type', () => {
  it('`email`: the owner of a proven address signs in (no account row), and the address is marked verified', async () => {
    const owner = await pg.adapter.createUser({ id: 'owner-1', email: 'owner@example.com', emailVerified: null });
    const { session } = await signIn('email', 'owner@example.com');
    expect(session?.user?.email).toBe('owner@example.com');
    expect((await pg.adapter.getUser(owner.id))?.emailVerified).toBeInstanceOf(Date);
  });

  it('any other type: an address another user holds is OAuthAccountNotLinked, and no session', async () => {
    await pg.adapter.createUser({ id: 'owner-2', email: 'taken@example.com', emailVerified: new Date() });
    const { res, session, t } = await signIn('code', 'taken@example.com');
    expect(res.headers.get('location')).toMatch(/error=OAuthAccountNotLinked/);
    expect(t.logger.errorTypes()).toEqual(['OAuthAccountNotLinked']);
    expect(session).toBeNull();
  });

  it('any other type, a new address: a new user linked by the account', async () => {
    const { session } = await signIn('code', 'fresh@example.com');
    expect(session?.user?.email).toBe('fresh@example.com');
    const { rows } = await pg.db.query<{ type: string }>(`SELECT a.type FROM accounts a JOIN users u ON u.id = a.user_id WHERE a.provider_account_id = 'fresh@example.com' AND u.email = 'fresh@example.com'`);
    expect(rows).toEqual([{ type: 'code' }]);
  });
});
