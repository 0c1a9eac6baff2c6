// A custom flow is code the app trusts, but not a door around the standard tail: whatever its machine outputs or
// emits, the browser is sent only where the redirect callback allows, and only the tail announces a sign-in.
import { baseContext, defineFlow, type FlowInput, type FlowOutput } from 'authchart/flow';
import { describe, expect, it } from 'vitest';
import { assign, emit, setup } from 'xstate';
import { ORIGIN, testAuth } from '../support/auth-app.js';

const EVIL = 'https://evil.example/phish';

/** A one-request flow that ends as `ending` says, after emitting events a real sign-in would. */
function flowEnding(ending: 'redirect' | 'authenticated-elsewhere') {
  const machine = setup({ types: { input: {} as FlowInput, output: {} as FlowOutput, emitted: {} as { type: string; user: { id: string }; account?: null } } }).createMachine({
    id: `rogue-${ending}`,
    initial: 'idle',
    context: ({ input }) => ({ ...baseContext(input), callbackUrl: ending === 'authenticated-elsewhere' ? EVIL : input.callbackUrl }),
    output: ({ event }) => (event as unknown as { output: FlowOutput }).output,
    states: {
      idle: {
        on: {
          GO: {
            target: 'end',
            actions: [emit({ type: 'signIn', user: { id: 'forged' }, account: null }), emit({ type: 'createUser', user: { id: 'forged' } })],
          },
        },
      },
      end: {
        type: 'final',
        output: () =>
          ending === 'redirect'
            ? { outcome: 'redirected' as const, url: EVIL }
            : { outcome: 'authenticated' as const, user: { id: 'u1', email: 'u1@example.com' }, account: { provider: 'x', type: 'rogue', providerAccountId: 'u1' } },
      },
    },
  });
  return defineFlow({ machine, version: 1, entry: (route) => (route === 'signin' ? { resume: false, event: { type: 'GO' } } : null) });
}

function app(ending: 'redirect' | 'authenticated-elsewhere', events: string[]) {
  const record = (name: string) => () => void events.push(name);
  return testAuth({
    providers: [{ id: 'rogue', name: 'Rogue', type: 'rogue', flow: flowEnding(ending) }],
    events: { signIn: record('signIn'), createUser: record('createUser'), linkAccount: record('linkAccount') },
  });
}

describe('a custom flow cannot send the browser off-site', () => {
  it('a redirected outcome to another origin goes to the origin instead', async () => {
    const events: string[] = [];
    const t = app('redirect', events);
    const res = await t.client.post('/auth/signin/rogue', { csrfToken: await t.csrfToken() });
    expect(res.status).toBe(302);
    expect(t.logger.errorTypes()).toEqual([]);
    expect(res.location?.origin).toBe(ORIGIN);
    expect(res.setCookie.some((c) => c.includes('session-token'))).toBe(false);
    // The machine emitted signIn and createUser itself: neither reached the app's events.
    expect(events).toEqual([]);
  });

  it('a callback URL the flow rewrote to another origin is refused after sign-in too; only the tail announces it', async () => {
    const events: string[] = [];
    const t = app('authenticated-elsewhere', events);
    const res = await t.client.post('/auth/signin/rogue', { csrfToken: await t.csrfToken() });
    expect(res.status).toBe(302);
    expect(res.location?.href).not.toContain('evil.example');
    expect(res.location?.origin).toBe(ORIGIN);
    expect(t.logger.errorTypes()).toEqual([]);
    expect(res.setCookie.some((c) => c.includes('session-token'))).toBe(true);
    expect(events).toEqual(['signIn']);
  });
});

describe('a custom flow cannot answer with a response the HTTP layer does not know', () => {
  /** Pauses with whatever `response` it is given, as a buggy or hostile flow might. */
  function pausingWith(response: unknown) {
    const machine = setup({ types: { input: {} as FlowInput, output: {} as FlowOutput } }).createMachine({
      id: 'odd-answer',
      initial: 'idle',
      context: ({ input }) => baseContext(input),
      states: {
        idle: { on: { GO: { target: 'waiting', actions: assign({ response: () => response as never }) } } },
        waiting: { tags: ['awaiting'] },
      },
    });
    return defineFlow({ machine, version: 1, entry: (route) => (route === 'signin' ? { resume: false, event: { type: 'GO' } } : null) });
  }

  it.each([
    ['an unknown kind', { kind: 'stream', body: 'x' }],
    ['a page the layer does not have', { kind: 'page', page: 'admin', data: {} }],
    ['a form without fields', { kind: 'page', page: 'form', data: { title: 'x' } }],
    ['html that is not a string', { kind: 'html', body: { toString: (): string => '<script>' } }],
  ])('%s is a CallbackRouteError: no 500, nothing sealed', async (_, response) => {
    const t = testAuth({ providers: [{ id: 'odd', name: 'Odd', type: 'odd', flow: pausingWith(response) }] });
    const res = await t.client.post('/auth/signin/odd', { csrfToken: await t.csrfToken() });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`${ORIGIN}/auth/error?error=Configuration`);
    expect(t.logger.errorTypes()).toEqual(['CallbackRouteError']);
    expect(res.setCookie.filter((c) => c.startsWith('authchart.flow.odd=') && !/max-age=0/i.test(c))).toEqual([]);
  });
});
