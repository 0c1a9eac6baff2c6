// A custom flow's own HTML answer may run a script of its own (a page that polls for an approval without a meta
// refresh): `pageNonce(deps.req)` gives the nonce, and the Content-Security-Policy the answer goes out with names
// exactly that one. A page that asks for none still runs no script at all.
import { AWAITING, baseContext, defineFlow, pageNonce, type FlowContextBase, type FlowInput } from 'authchart/flow';
import { describe, expect, it } from 'vitest';
import { assign, setup } from 'xstate';
import { testAuth } from '../../support/auth-app.js';

const pollingMachine = setup({ types: { context: {} as FlowContextBase, input: {} as FlowInput } }).createMachine({
  id: 'polling',
  initial: 'idle',
  context: ({ input }) => baseContext(input),
  states: {
    idle: { on: { START: 'waiting', PLAIN: 'plain' } },
    waiting: {
      tags: [AWAITING],
      entry: assign({
        response: ({ context }) => ({
          kind: 'html' as const,
          body: `<!doctype html><p>Waiting…</p><script nonce="${pageNonce(context.deps.req)}">setTimeout(() => fetch(location.href), 2000)</script>`,
        }),
      }),
    },
    plain: { tags: [AWAITING], entry: assign({ response: () => ({ kind: 'html' as const, body: '<!doctype html><p>No script here.</p>' }) }) },
  },
});
const pollingFlow = defineFlow({
  machine: pollingMachine,
  version: 1,
  entry: (route, deps) => (route === 'signin' ? { resume: false, event: { type: deps.req.body.plain ? 'PLAIN' : 'START' } } : null),
});
const provider = { id: 'poll', name: 'Poll', type: 'custom', flow: pollingFlow };

async function start(body: Record<string, string> = {}) {
  const t = testAuth({ providers: [provider] });
  const res = await t.client.post('/auth/signin/poll', { csrfToken: await t.csrfToken(), ...body });
  return { res, page: await res.text(), csp: res.headers.get('content-security-policy') ?? '' };
}

describe("a flow's own HTML answer and its script nonce", () => {
  it('names the nonce of the page in script-src, and the page carries the same one', async () => {
    const { res, page, csp } = await start();
    expect(res.status).toBe(200);
    const inPage = /<script nonce="([^"]+)">/.exec(page)?.[1];
    expect(inPage).toMatch(/^[A-Za-z0-9+/]{22}==$/);
    expect(csp).toContain(`script-src 'nonce-${inPage}'`);
    expect(csp).toContain("connect-src 'self'"); // what a polling script fetches with
    expect(csp).not.toContain("script-src 'none'");
  });

  it('makes a new nonce for every answer', async () => {
    const [one, two] = [await start(), await start()];
    expect(/nonce="([^"]+)"/.exec(one.page)?.[1]).not.toBe(/nonce="([^"]+)"/.exec(two.page)?.[1]);
  });

  it('allows no script at all when the flow asked for no nonce', async () => {
    const { page, csp } = await start({ plain: '1' });
    expect(page).toContain('No script here.');
    expect(csp).toContain("script-src 'none'");
  });
});
