// testFlow drives a flow as a browser that sends headers of its own and starts signed in: `signInAs` mints the
// session by the configured strategy (a JWT cookie, or a database row and its cookie), so a test never guesses the
// session cookie's name or makes its token. The flow sees both through its deps, as over HTTP.
import { AWAITING, baseContext, defineFlow, testFlow, type FlowContextBase, type FlowInput, type FlowSession, type TestFlowResult } from 'authchart/flow';
import { describe, expect, it } from 'vitest';
import { assign, fromPromise, setup } from 'xstate';
import { useMigratedPGlite } from '../support/pglite.js';

interface Seen {
  session: FlowSession | null;
  language: string | null;
  tag: string | null;
}

const lookMachine = setup({
  types: { context: {} as FlowContextBase, input: {} as FlowInput },
  actors: {
    look: fromPromise<Seen, { deps: FlowContextBase['deps'] }>(async ({ input }) => ({
      session: await input.deps.session(),
      language: input.deps.req.request.headers.get('accept-language'),
      tag: input.deps.req.request.headers.get('x-tag'),
    })),
  },
}).createMachine({
  id: 'look',
  initial: 'idle',
  context: ({ input }) => baseContext(input),
  states: {
    idle: { on: { START: 'looking' } },
    looking: {
      invoke: {
        src: 'look',
        input: ({ context }) => ({ deps: context.deps }),
        onDone: { target: 'shown', actions: assign({ response: ({ event }) => ({ kind: 'json' as const, body: event.output }) }) },
        onError: 'failed',
      },
    },
    shown: { tags: [AWAITING] },
    failed: { type: 'final', meta: { error: 'CallbackRouteError' } },
  },
});
const lookFlow = defineFlow({ machine: lookMachine, version: 1, entry: (route) => (route === 'signin' ? { resume: false, event: { type: 'START' } } : null) });
const provider = () => ({ id: 'look', name: 'Look', type: 'custom', flow: lookFlow });

const seen = (r: TestFlowResult): Seen => {
  if (r.status !== 'paused' || r.response.kind !== 'json') throw new Error(`expected a paused JSON answer, got ${r.status}`);
  return r.response.body as Seen;
};

const pglite = useMigratedPGlite();

describe('testFlow: headers and a signed-in start', () => {
  it('sends the browser\'s headers on every request, and a call\'s own headers on that call only', async () => {
    const browser = testFlow(provider());
    browser.setHeader('Accept-Language', 'ja');
    expect(seen(await browser.signIn({}, { headers: { 'X-Tag': 'one' } }))).toMatchObject({ language: 'ja', tag: 'one' });
    expect(seen(await browser.signIn())).toMatchObject({ language: 'ja', tag: null });
    expect(seen(await browser.signIn({}, { headers: { 'accept-language': 'ar' } }))).toMatchObject({ language: 'ar' });
    browser.setHeader('accept-language', null);
    expect(seen(await browser.signIn())).toMatchObject({ language: null });
  });

  it('starts from a JWT session for a user id, with the methods and time given; another browser is signed out', async () => {
    const browser = testFlow(provider());
    expect(seen(await browser.signIn()).session).toBeNull();
    const authTime = new Date(Math.floor(Date.now() / 1000) * 1000 - 3_600_000);
    await browser.signInAs('user-1', { amr: ['pwd', 'otp'], authTime });
    const session = seen(await browser.signIn()).session;
    expect(session).toMatchObject({ userId: 'user-1', amr: ['pwd', 'otp'] });
    expect(session?.authTime?.getTime()).toBe(authTime.getTime());
    expect(seen(await browser.browser().signIn()).session).toBeNull();
  });

  it('starts from a database session for a stored user, and refuses a user the adapter does not have', async () => {
    const user = await pglite.adapter.createUser({ id: crypto.randomUUID(), email: `db-${crypto.randomUUID()}@example.test`, emailVerified: null });
    const browser = testFlow(provider(), { adapter: pglite.adapter, session: { strategy: 'database' } });
    await browser.signInAs(user.id);
    expect(seen(await browser.signIn()).session).toMatchObject({ userId: user.id, amr: ['pwd'] });
    const { rows } = await pglite.db.query<{ n: number }>('SELECT count(*)::int AS n FROM sessions WHERE user_id = $1', [user.id]);
    expect(rows[0]!.n).toBe(1);
    await expect(browser.browser().signInAs('nobody')).rejects.toThrow(/needs a user "nobody"/);
  });
});
