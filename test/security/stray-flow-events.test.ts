// A stray request to a paused flow (a POST the waiting state does not take: a replayed form of another step, a
// forged action) gets a typed InvalidRequest — 400 JSON for a fetch, the error page for a browser — and leaves the
// paused flow as it was: its cookie is kept, nothing ran, and the real answer still completes the sign-in.
import { assign, setup } from 'xstate';
import { describe, expect, it } from 'vitest';
import { AWAITING, baseContext, defineFlow, type FlowContextBase, type FlowInput, type FlowOutput } from '../../src/flow.js';
import { testAuth } from '../support/auth-app.js';

const FLOW_COOKIE = 'authchart.flow.confirm';
let confirmRuns = 0;

// Waits for CONFIRM only; the entry turns any other `action` into an event of that name.
const machine = setup({
  types: { context: {} as FlowContextBase & { answered?: boolean }, events: {} as { type: 'START' } | { type: 'CONFIRM' } | { type: 'POKE' }, input: {} as FlowInput, output: {} as FlowOutput },
}).createMachine({
  id: 'confirm',
  initial: 'idle',
  context: ({ input }) => baseContext(input),
  output: ({ event }) => (event as unknown as { output: FlowOutput }).output,
  states: {
    idle: { on: { START: { target: 'waiting', actions: assign({ response: () => ({ kind: 'json' as const, body: { waiting: true } }) }) } } },
    waiting: { tags: [AWAITING], on: { CONFIRM: { target: 'done', actions: () => void confirmRuns++ } } },
    done: {
      type: 'final',
      output: () => ({ outcome: 'authenticated' as const, user: { email: 'stray@example.test' }, account: { provider: 'confirm', type: 'confirm', providerAccountId: 'stray' } }),
    },
  },
});
const flow = defineFlow({
  machine,
  version: 1,
  csrf: ['signin', 'callback'],
  entry: (route, deps, paused) => {
    if (route === 'signin') return { resume: false, event: { type: 'START' } };
    const action = typeof deps.req.body.action === 'string' ? deps.req.body.action.toUpperCase() : '';
    if (route === 'callback') return { resume: paused, event: { type: action } };
    return null;
  },
});

const provider = { id: 'confirm', name: 'Confirm', type: 'custom', flow } as never;

describe('a stray event to a paused flow', () => {
  for (const [who, headers] of [['fetch', { accept: 'application/json' }], ['browser', { accept: 'text/html' }]] as const) {
    it(`answers a ${who} with InvalidRequest and keeps the paused flow`, async () => {
      const t = testAuth({ providers: [provider] });
      const csrf = await t.csrfToken();
      const started = await t.client.post('/auth/signin/confirm', { csrfToken: csrf }, { headers: { accept: 'application/json' } });
      expect(started.status).toBe(200);
      const cookie = t.client.cookies.get(FLOW_COOKIE);
      expect(cookie).toBeTruthy();
      const runsBefore = confirmRuns;
      for (const action of ['poke', 'start', 'xstate.init', '']) {
        const res = await t.client.post('/auth/callback/confirm', { csrfToken: csrf, action }, { headers });
        if (who === 'fetch') {
          expect(res.status, action).toBe(400);
          expect(await res.json()).toMatchObject({ error: 'InvalidRequest' });
        } else {
          expect(res.status, action).toBe(302);
          expect(res.headers.get('location'), action).toMatch(/\/auth\/error\?error=InvalidRequest/);
        }
        // Not cleared, not replaced: the very cookie the browser holds.
        expect(res.setCookie?.some((c: string) => c.startsWith(`${FLOW_COOKIE}=`)) ?? false, action).toBe(false);
        expect(t.client.cookies.get(FLOW_COOKIE), action).toBe(cookie);
      }
      expect(confirmRuns).toBe(runsBefore);
      // The real answer still completes the sign-in.
      const done = await t.client.post('/auth/callback/confirm', { csrfToken: csrf, action: 'confirm' });
      expect(done.status).toBe(302);
      expect(done.headers.get('location')).not.toMatch(/error=/);
      expect(t.client.cookies.get('authchart.session-token')).toBeTruthy();
      expect(confirmRuns).toBe(runsBefore + 1);
    });
  }
});
