// The door's account flows (an anonymous visitor's flows that end in no provider's callback): their own cookie slot
// per flow and provider, a pause with a page read back by `GET flow/:slot`, a proven user handed to the standard
// sign-in stages (session, createUser and signIn events, the signIn callback), a redirect through the redirect
// callback, and the contract's checks.
import { assign, fromPromise, setup } from 'xstate';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/core/config.js';
import type { AuthConfig } from '../../../src/core/options.js';
import type { ResolvedProvider } from '../../../src/core/provider.js';
import { accountOutputOf, defineAccountFlow, isAccountFlow, type AccountRoute } from '../../../src/flows/runtime/account.js';
import { AWAITING, finalOutput, type FlowDeps, type FlowInput } from '../../../src/flows/runtime/contract.js';
import { baseContext, type FlowContextBase } from '../../../src/flows/runtime/context.js';
import { step, type DoorCatalog } from '../../../src/flows/runtime/door.js';
import { signInStages, secondFactorStage } from '../../../src/flows/registry.js';
import { ACCOUNT_FLOWS } from '../../../src/http/app.js';
import { accountFlowIds } from '../../../src/flows/registry.js';
import { Credentials } from '../../../src/providers/credentials.js';
import { createAuthRequest } from '../../../src/http/request.js';
import { ORIGIN, TEST_SECRET } from '../../support/auth-app.js';
import { memoryAdapter } from '../../http/helpers.js';

type Ev = { type: 'SUBMIT'; name: string } | { type: 'CODE'; code: string };

const machine = setup({
  types: { context: {} as FlowContextBase & { name?: string }, events: {} as Ev, input: {} as FlowInput },
  actors: {
    create: fromPromise<{ id: string; email: string }, { deps: FlowDeps; name: string }>(async ({ input }) => {
      const user = { id: `u-${input.name}`, email: `${input.name}@example.com`, emailVerified: new Date() };
      await input.deps.req.config.adapter!.createUser(user);
      return user;
    }),
  },
}).createMachine({
  id: 'test-account',
  initial: 'idle',
  context: ({ input }) => baseContext(input),
  output: finalOutput,
  states: {
    idle: { on: { SUBMIT: { target: 'asking', actions: assign({ name: ({ event }) => event.name }) } } },
    asking: {
      tags: [AWAITING],
      entry: assign({ response: () => ({ kind: 'page' as const, page: 'form' as const, data: { title: 'Code', fields: [{ name: 'code', label: 'Code' }] } }) }),
      on: {
        CODE: [
          { guard: ({ event }) => event.code === 'ok', target: 'creating' },
          { guard: ({ event }) => event.code === 'away', target: 'away' },
          { target: 'failed.invalidCheck' },
        ],
      },
    },
    creating: {
      invoke: {
        src: 'create',
        input: ({ context }) => ({ deps: context.deps, name: context.name ?? '' }),
        onDone: { target: 'done', actions: assign({ user: ({ event }) => event.output }) },
        onError: 'failed.callbackRoute',
      },
    },
    done: { type: 'final', output: ({ context }) => ({ outcome: 'signIn', user: context.user, created: true, amr: ['pwd'] }) },
    away: { type: 'final', output: () => ({ outcome: 'redirected', url: 'https://evil.example/' }) },
    failed: {
      initial: 'callbackRoute',
      states: { invalidCheck: { type: 'final', meta: { error: 'InvalidCheck' } }, callbackRoute: { type: 'final', meta: { error: 'CallbackRouteError' } } },
    },
  },
});

const flow = defineAccountFlow({
  id: 'test-account',
  machine,
  version: 1,
  entry: (route, deps, paused) => {
    if (route !== 'submit') return null;
    const body = deps.req.body as Record<string, string>;
    if (paused && body.code !== undefined) return { resume: true, event: { type: 'CODE', code: body.code } };
    return { resume: false, event: { type: 'SUBMIT', name: body.name ?? '' } };
  },
});

const provider = { ...Credentials({ authorize: () => null }), id: 'password' } as unknown as ResolvedProvider;
const catalog: DoorCatalog = {
  flowFor: () => Promise.reject(new Error('no sign-in flow here')),
  signInStages,
  linkStages: () => Promise.reject(new Error('no link here')),
  secondFactorStage,
  accountFlow: async (id) => (id === flow.id ? flow : undefined),
};

function setup2() {
  const adapter = memoryAdapter();
  const events: string[] = [];
  const config = resolveConfig(
    {
      secret: TEST_SECRET,
      trustHost: true,
      providers: [provider],
      adapter,
      session: { strategy: 'jwt' },
      events: { createUser: () => void events.push('createUser'), signIn: () => void events.push('signIn') },
    } as unknown as AuthConfig,
    { env: {} },
  );
  let jar: Record<string, string> = {};
  const request = async (route: AccountRoute, body: Record<string, string>, path = `/auth/test-account/password`) => {
    const cookie = Object.entries(jar).map(([k, v]) => `${k}=${v}`).join('; ');
    const req = await createAuthRequest(
      new Request(`${ORIGIN}${path}`, { method: route === 'submit' ? 'POST' : 'GET', headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) }, ...(route === 'submit' ? { body: JSON.stringify(body) } : {}) }),
      config,
    );
    return req;
  };
  const keep = (req: { setCookies: { name: string; value: string; options: { maxAge?: number } }[] }) => {
    for (const c of req.setCookies) {
      if (c.options.maxAge === 0) delete jar[c.name];
      else jar[c.name] = c.value;
    }
  };
  return { adapter, events, request, keep, jar: () => jar, reset: () => (jar = {}) };
}

describe('the account door', () => {
  it('pauses in its own slot with its page, then hands the proven user to the sign-in stages', async () => {
    const t = setup2();
    const first = await t.request('submit', { name: 'ada' });
    const paused = await step(catalog, first, { kind: 'account', flow, provider, route: 'submit', callbackUrl: `${ORIGIN}/home` });
    t.keep(first);
    expect(paused).toMatchObject({ status: 'paused', slot: 'account.test-account.password', action: 'test-account/password' });
    expect(Object.keys(t.jar())).toEqual(['authchart.flow-account.test-account.password']);

    const page = await t.request('link', {}, '/auth/flow/account.test-account.password');
    expect(await step(catalog, page, { kind: 'page', slot: 'account.test-account.password' })).toMatchObject({ status: 'paused', response: { kind: 'page', page: 'form' } });

    const second = await t.request('submit', { code: 'ok' });
    const answer = await step(catalog, second, { kind: 'account', flow, provider, route: 'submit', callbackUrl: `${ORIGIN}/home` });
    t.keep(second);
    expect(answer).toEqual({ status: 'signedIn', redirect: `${ORIGIN}/home`, isNewUser: true });
    expect(t.events).toEqual(['createUser', 'signIn']);
    expect(t.adapter.users.get('u-ada')?.email).toBe('ada@example.com');
    expect(t.jar()['authchart.session-token']).toBeTruthy();
    expect(t.jar()['authchart.flow-account.test-account.password']).toBeUndefined();
  });

  it('a tampered cookie is refused, and creates nobody', async () => {
    const t = setup2();
    const first = await t.request('submit', { name: 'bo' });
    await step(catalog, first, { kind: 'account', flow, provider, route: 'submit', callbackUrl: `${ORIGIN}/` });
    t.keep(first);
    const sealed = t.jar()['authchart.flow-account.test-account.password'];
    t.reset();
    t.jar()['authchart.flow.password'] = sealed;
    t.jar()['authchart.flow-account.test-account.password'] = sealed.slice(0, -4) + 'AAAA';
    const forged = await t.request('submit', { code: 'ok' });
    const answer = await step(catalog, forged, { kind: 'account', flow, provider, route: 'submit', callbackUrl: `${ORIGIN}/` });
    expect(answer).toMatchObject({ status: 'failed', error: { type: 'InvalidCheck' } });
    expect(t.adapter.users.size).toBe(0);
  });

  it('a redirect goes through the redirect callback (same origin by default)', async () => {
    const t = setup2();
    const first = await t.request('submit', { name: 'cy' });
    await step(catalog, first, { kind: 'account', flow, provider, route: 'submit', callbackUrl: `${ORIGIN}/` });
    t.keep(first);
    const second = await t.request('submit', { code: 'away' });
    const answer = await step(catalog, second, { kind: 'account', flow, provider, route: 'submit', callbackUrl: `${ORIGIN}/` });
    expect(answer).toEqual({ status: 'redirected', url: `${ORIGIN}/` });
  });

  it('a request the flow does not take runs nothing', async () => {
    const t = setup2();
    const req = await t.request('link', {});
    expect(await step(catalog, req, { kind: 'account', flow, provider, route: 'link', callbackUrl: `${ORIGIN}/` })).toEqual({ status: 'notTaken' });
  });
});

describe('the account flow contract', () => {
  it('checks the definition and the output', () => {
    expect(isAccountFlow(flow)).toBe(true);
    expect(isAccountFlow({ ...flow })).toBe(false);
    expect(() => defineAccountFlow({ ...flow, id: 'Bad Id' })).toThrow(/id/);
    expect(() => defineAccountFlow({ ...flow, version: 0 })).toThrow(/version/);
    expect(accountOutputOf({ outcome: 'signIn', user: { id: '' } })).toBeUndefined();
    expect(accountOutputOf({ outcome: 'signIn', user: { id: 'x' }, created: 'yes' })).toBeUndefined();
    expect(accountOutputOf({ outcome: 'authenticated', user: { id: 'x' } })).toBeUndefined();
    expect(accountOutputOf({ outcome: 'redirected', url: '' })).toBeUndefined();
    expect(accountOutputOf({ outcome: 'signIn', user: { id: 'x' } })).toEqual({ outcome: 'signIn', user: { id: 'x' } });
  });

  it('http/app.ts routes exactly the registry\'s account flows', () => {
    expect([...ACCOUNT_FLOWS].sort()).toEqual([...accountFlowIds].sort());
  });
});
