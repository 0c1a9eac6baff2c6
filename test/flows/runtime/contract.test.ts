// The public flow contract from a custom provider's side: a flow written against the package entry only
// ('authchart') signs in through the standard tail and its session, or fails with a typed error, never a session
// and never a 500. Its flow cookie is bound to its provider and version; a flow not made with defineFlow is
// refused; a custom provider may have any `type`.
import { type AuthConfig, type CommonProviderOptions, type SignInCallbackParams, type User } from 'authchart';
import { AWAITING, baseContext, defineFlow, evidenceFrom, type FlowContextBase, type FlowDefinition, type FlowDeps, type FlowInput, type FlowOutput } from 'authchart/flow';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { assign, fromPromise, setup } from 'xstate';
import { resolveConfig } from '../../../src/core/config.js';
import { decodeSync, encodeSync } from '../../../src/session/jwt.js';
import { ORIGIN, TEST_SECRET, testAuth, type TestAuth } from '../../support/auth-app.js';
import { createClient, type ClientResponse } from '../../support/client.js';

// ---- a custom flow, as an app would write it: sign in with an e-mail address and a PIN from the app's directory ----

interface PinProvider extends CommonProviderOptions {
  /** The app's own users: address -> PIN and name. */
  directory: Record<string, { pin: string; name: string }>;
}

interface PinContext extends FlowContextBase {
  email?: string;
}

type PinEvent = { type: 'START'; email: string } | { type: 'PIN'; pin: string };

const pinMachine = setup({
  types: { context: {} as PinContext, events: {} as PinEvent, input: {} as FlowInput, output: {} as FlowOutput },
  actors: {
    // Real work on the deps it is handed: the provider's directory.
    checkPin: fromPromise<User | null, { deps: FlowDeps; email: string; pin: string }>(async ({ input }) => {
      const entry = (input.deps.provider as unknown as PinProvider).directory[input.email];
      if (entry?.pin === 'throws') throw new Error('the directory is down');
      return entry && entry.pin === input.pin ? { id: input.email, email: input.email, name: entry.name } : null;
    }),
  },
  guards: {
    userFound: ({ event }) => Boolean((event as unknown as { output: User | null }).output),
  },
}).createMachine({
  id: 'pin',
  initial: 'idle',
  context: ({ input }) => baseContext(input),
  output: ({ event }) => (event as unknown as { output: FlowOutput }).output,
  states: {
    idle: {
      on: {
        START: {
          target: 'awaitingPin',
          actions: assign({ email: ({ event }) => event.email, response: { kind: 'html' as const, body: '<p>Enter the PIN we gave you.</p>' } }),
        },
      },
    },
    awaitingPin: { tags: [AWAITING], on: { PIN: 'checking' } },
    checking: {
      invoke: {
        src: 'checkPin',
        // The PIN comes from the event and is never kept in the context (nor in the flow cookie).
        input: ({ context, event }) => ({ deps: context.deps, email: context.email ?? '', pin: (event as { pin?: string }).pin ?? '' }),
        onDone: [
          { guard: 'userFound', target: 'authenticated', actions: assign({ user: ({ event }) => event.output! }) },
          { target: 'failed.credentialsSignin', actions: assign({ failure: { message: 'Wrong PIN.', expected: 'the PIN', actual: 'another' } }) },
        ],
        onError: { target: 'failed.callbackRoute', actions: assign({ failure: ({ event }) => evidenceFrom(event.error) }) },
      },
    },
    authenticated: {
      type: 'final',
      output: ({ context }) => ({ outcome: 'authenticated' as const, user: context.user!, account: { provider: context.providerId, type: 'pin', providerAccountId: context.email! } }),
    },
    failed: {
      initial: 'callbackRoute',
      states: {
        credentialsSignin: { type: 'final', meta: { error: 'CredentialsSignin' } },
        callbackRoute: { type: 'final', meta: { error: 'CallbackRouteError' } },
      },
    },
  },
});

const pinFlowOf = (version: number) =>
  defineFlow({
    machine: pinMachine,
    version,
    csrf: ['signin', 'callback'],
    entry: (route, deps) => {
      if (route === 'signin') return { resume: false, event: { type: 'START', email: String(deps.req.body.email ?? '') } };
      if (route === 'callback' && deps.req.method === 'POST') return { resume: true, event: { type: 'PIN', pin: String(deps.req.body.pin ?? '') } };
      return null;
    },
  });
const pinFlow = pinFlowOf(1);

const ADA = 'ada@example.com';
const pinProvider = (id = 'pin', flow: FlowDefinition = pinFlow): PinProvider & { flow: FlowDefinition } => ({
  id,
  name: 'PIN',
  type: 'custom',
  flow,
  directory: { [ADA]: { pin: '1234', name: 'Ada' }, 'down@example.com': { pin: 'throws', name: 'Down' } },
});

// ---- helpers ---------------------------------------------------------------------------------------------

const SESSION_COOKIE = 'authchart.session-token';
const flowCookieOf = (id: string) => `authchart.flow.${id}`;
const CONFIGURATION = `${ORIGIN}/auth/error?error=Configuration`;

const sessionWrites = (res: ClientResponse) => res.setCookie.filter((line) => line.startsWith(`${SESSION_COOKIE}=`) && !/max-age=0/i.test(line));

interface Recorded {
  signIns: SignInCallbackParams[];
  events: string[];
}

function auth(providers: AuthConfig['providers'], extra: Partial<AuthConfig> = {}): TestAuth & { recorded: Recorded } {
  const recorded: Recorded = { signIns: [], events: [] };
  const t = testAuth({
    providers,
    callbacks: {
      signIn: (params) => {
        recorded.signIns.push(params);
        return true;
      },
    },
    events: { signIn: () => void recorded.events.push('signIn'), createUser: () => void recorded.events.push('createUser') },
    ...extra,
  });
  return Object.assign(t, { recorded });
}

async function startPin(t: TestAuth, id = 'pin', email = ADA, client = t.client): Promise<ClientResponse> {
  const res = await client.post(`/auth/signin/${id}`, { csrfToken: await t.csrfToken(client), email, callbackUrl: '/home' });
  expect(res.status).toBe(200);
  expect(await res.text()).toContain('Enter the PIN');
  expect(client.cookies.get(flowCookieOf(id)), 'flow cookie set').toBeTruthy();
  return res;
}

async function sendPin(t: TestAuth, pin: string, id = 'pin', client = t.client): Promise<ClientResponse> {
  return client.post(`/auth/callback/${id}`, { csrfToken: await t.csrfToken(client), pin });
}

/** The failure redirect, nothing signed in, nothing sent to the tail; the logged error. */
function expectRefused(t: TestAuth & { recorded: Recorded }, res: ClientResponse, location: string, type: string) {
  expect(res.status).toBe(302);
  expect(res.headers.get('location')).toBe(location);
  expect(sessionWrites(res)).toEqual([]);
  expect(t.recorded.signIns, 'the tail never saw it').toEqual([]);
  expect(t.recorded.events).toEqual([]);
  expect(t.logger.errorTypes()).toEqual([type]);
  return t.logger.errors[0] as Error & { cause?: Record<string, unknown> };
}

afterEach(() => {
  vi.restoreAllMocks();
});

// ---- the suite -------------------------------------------------------------------------------------------

describe('a custom flow on the public contract', () => {
  it('pauses, resumes, ends authenticated and gets a session cookie through the standard tail', async () => {
    const t = auth([pinProvider()]);
    await startPin(t);
    const res = await sendPin(t, '1234');
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe(`${ORIGIN}/home`);
    expect(sessionWrites(res)).toHaveLength(1);
    expect(t.client.cookies.get(flowCookieOf('pin')), 'flow cookie spent').toBeUndefined();
    // The tail asked the signIn callback about the flow's identity, and fired the signIn event.
    expect(t.recorded.signIns).toHaveLength(1);
    expect(t.recorded.signIns[0]).toMatchObject({ user: { email: ADA, name: 'Ada' }, account: { provider: 'pin', type: 'pin', providerAccountId: ADA } });
    expect(t.recorded.events).toEqual(['signIn']);
    const session = (await (await t.client.get('/auth/session')).json()) as { user: { email: string; name: string } };
    expect(session.user).toMatchObject({ email: ADA, name: 'Ada' });
    expect(t.logger.errors).toEqual([]);
    const record = t.logger.debugs.find((d) => d.message === 'flow pin signedIn')?.metadata as { trace: { machine?: string; to: string }[] };
    expect(record.trace.filter((e) => e.machine === 'signin').at(-1)?.to).toBe('resolved');
  });

  it('keeps what the flow put in its context, and nothing of the deps, in its sealed cookie', async () => {
    const t = auth([pinProvider()]);
    await startPin(t);
    const claims = decodeSync({ token: t.client.cookies.get(flowCookieOf('pin'))!, secret: TEST_SECRET, salt: flowCookieOf('pin') }) as { c: Record<string, unknown> };
    expect(Object.keys(claims.c).sort()).toEqual(['callbackUrl', 'email', 'flowId', 'providerId', 'startedAt']);
    expect(JSON.stringify(claims)).not.toMatch(/1234|directory|deps/);
  });

  it('ends in its own typed failure state: a wrong PIN is CredentialsSignin, no session', async () => {
    const t = auth([pinProvider()]);
    await startPin(t);
    const error = expectRefused(t, await sendPin(t, '0000'), `${ORIGIN}/auth/signin?error=CredentialsSignin&code=credentials`, 'CredentialsSignin');
    expect(error.cause).toMatchObject({ state: 'failed.credentialsSignin', expected: 'the PIN' });
  });

  it('is listed on the sign-in page (a form that POSTs signin/:id) and in GET providers with its own type', async () => {
    const t = auth([pinProvider()]);
    const page = await (await t.client.get('/auth/signin')).text();
    expect(page).toContain(`action="${ORIGIN}/auth/signin/pin"`);
    expect(page).toContain('Sign in with PIN');
    const providers = (await (await t.client.get('/auth/providers')).json()) as Record<string, { type: string; signinUrl: string }>;
    expect(providers.pin).toMatchObject({ type: 'custom', signinUrl: `${ORIGIN}/auth/signin/pin` });
  });
});

describe('a custom flow that ends without a valid output: CallbackRouteError, never a session', () => {
  type Answer = { answer: unknown };
  // Ends at once in a final state whose output is whatever its provider says.
  const answering = setup({ types: { context: {} as FlowContextBase, input: {} as FlowInput } }).createMachine({
    id: 'answering',
    initial: 'idle',
    context: ({ input }) => baseContext(input),
    output: ({ event }) => (event as unknown as { output: unknown }).output,
    states: {
      idle: { on: { SUBMIT: 'ended' } },
      ended: { type: 'final', output: ({ context }) => (context.deps.provider as unknown as Answer).answer },
    },
  });
  const answerFlow = defineFlow({ machine: answering, version: 1, csrf: ['callback'], entry: (route) => (route === 'callback' ? { resume: false, event: { type: 'SUBMIT' } } : null) });
  const provider = (answer: unknown) => ({ id: 'answer', name: 'Answer', type: 'custom', flow: answerFlow, answer });
  const user = { id: 'u1', email: 'u1@example.com' };
  const account = { type: 'custom', providerAccountId: 'u1' };
  const submit = async (t: TestAuth) => t.client.post('/auth/callback/answer', { csrfToken: await t.csrfToken() });

  it.each<[string, unknown]>([
    ['no output at all', undefined],
    ['null', null],
    ['a bare string', 'authenticated'],
    ['authenticated without an account', { outcome: 'authenticated', user }],
    ['authenticated without a user', { outcome: 'authenticated', account }],
    ['an account without providerAccountId', { outcome: 'authenticated', user, account: { type: 'custom' } }],
    ['an empty providerAccountId', { outcome: 'authenticated', user, account: { ...account, providerAccountId: '' } }],
    ['a numeric providerAccountId', { outcome: 'authenticated', user, account: { ...account, providerAccountId: 42 } }],
    ['an account without a type', { outcome: 'authenticated', user, account: { providerAccountId: 'u1' } }],
    ['an outcome the contract does not have', { outcome: 'signedIn', user, account }],
    ['redirected without a URL', { outcome: 'redirected' }],
  ])('%s', async (_name, answer) => {
    const t = auth([provider(answer)]);
    const error = expectRefused(t, await submit(t), CONFIGURATION, 'CallbackRouteError');
    expect(error.message).toMatch(/ended without an outcome/);
    expect(error.cause).toMatchObject({ state: 'ended' });
  });

  it('an account naming another provider is signed in as its own provider', async () => {
    const t = auth([provider({ outcome: 'authenticated', user, account: { ...account, provider: 'github' } })]);
    const res = await submit(t);
    expect(sessionWrites(res)).toHaveLength(1);
    expect(t.recorded.signIns[0].account).toMatchObject({ provider: 'answer', providerAccountId: 'u1' });
  });

  it('redirected with a URL sends the browser there without running the tail', async () => {
    const t = auth([provider({ outcome: 'redirected', url: `${ORIGIN}/check-your-phone` })]);
    const res = await submit(t);
    expect(res.headers.get('location')).toBe(`${ORIGIN}/check-your-phone`);
    expect(sessionWrites(res)).toEqual([]);
    expect(t.recorded.signIns).toEqual([]);
  });
});

describe('its flow cookie is bound to its provider and its version', () => {
  it("another provider's cookie planted under its name cannot be opened: InvalidCheck, no PIN checked", async () => {
    const t = auth([pinProvider('pin'), pinProvider('pin2')]);
    await startPin(t, 'pin');
    t.client.cookies.set(flowCookieOf('pin2'), t.client.cookies.get(flowCookieOf('pin'))!, ORIGIN);
    expectRefused(t, await sendPin(t, '1234', 'pin2'), CONFIGURATION, 'InvalidCheck');
    expect(t.logger.errors[0].message).toMatch(/could not be opened/);
  });

  it("another provider's flow re-sealed under its key is refused by the provider claim", async () => {
    const t = auth([pinProvider('pin'), pinProvider('pin2')]);
    await startPin(t, 'pin');
    const claims = decodeSync({ token: t.client.cookies.get(flowCookieOf('pin'))!, secret: TEST_SECRET, salt: flowCookieOf('pin') })!;
    t.client.cookies.set(flowCookieOf('pin2'), encodeSync({ token: claims, secret: TEST_SECRET, salt: flowCookieOf('pin2'), maxAge: 900 }), ORIGIN);
    const error = expectRefused(t, await sendPin(t, '1234', 'pin2'), CONFIGURATION, 'InvalidCheck');
    expect(error.cause).toMatchObject({ expected: 'pin2', actual: 'pin' });
  });

  it('a cookie of another version of the flow is an InvalidCheck', async () => {
    const v1 = auth([pinProvider('pin', pinFlowOf(1))]);
    await startPin(v1);
    const v2 = auth([pinProvider('pin', pinFlowOf(2))]);
    const browser = createClient({ fetch: v2.handle, baseUrl: ORIGIN, cookies: v1.client.cookies });
    const res = await browser.post('/auth/callback/pin', { csrfToken: await v2.csrfToken(browser), pin: '1234' });
    const error = expectRefused(v2, res, CONFIGURATION, 'InvalidCheck');
    expect(error.cause).toMatchObject({ expected: 'pin@2', actual: 'pin@1' });
  });
});

describe('a thrown error in its actors is a typed failure, never a 500', () => {
  it("caught by the flow into a failure state: that state's error, with the cause", async () => {
    const t = auth([pinProvider()]);
    await startPin(t, 'pin', 'down@example.com');
    const error = expectRefused(t, await sendPin(t, 'throws'), CONFIGURATION, 'CallbackRouteError');
    expect(error.message).toBe('the directory is down');
    expect(error.cause).toMatchObject({ state: 'failed.callbackRoute' });
  });

  // A machine that does not handle its actor's error at all: the runtime still answers with a typed error.
  const careless = setup({
    types: { context: {} as FlowContextBase, input: {} as FlowInput },
    actors: {
      work: fromPromise<void, { deps: FlowDeps }>(async ({ input }) => {
        const thrown = (input.deps.provider as unknown as { thrown: unknown }).thrown;
        throw thrown;
      }),
    },
  }).createMachine({
    id: 'careless',
    initial: 'idle',
    context: ({ input }) => baseContext(input),
    states: {
      idle: { on: { SUBMIT: 'working' } },
      working: { invoke: { src: 'work', input: ({ context }) => ({ deps: context.deps }), onDone: 'done' } },
      done: { type: 'final' },
    },
  });
  const carelessFlow = defineFlow({ machine: careless, version: 1, csrf: ['callback'], entry: () => ({ resume: false, event: { type: 'SUBMIT' } }) });

  it.each<[string, unknown]>([
    ['an Error', new Error('boom')],
    ['a string', 'boom'],
    ['undefined', undefined],
  ])('not handled by the flow (%s thrown): CallbackRouteError, no uncaught exception', async (_name, thrown) => {
    const uncaught = vi.fn();
    process.on('uncaughtException', uncaught);
    process.on('unhandledRejection', uncaught);
    try {
      const t = auth([{ id: 'careless', name: 'Careless', type: 'custom', flow: carelessFlow, thrown } as CommonProviderOptions]);
      const res = await t.client.post('/auth/callback/careless', { csrfToken: await t.csrfToken() });
      expectRefused(t, res, CONFIGURATION, 'CallbackRouteError');
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(uncaught).not.toHaveBeenCalled();
    } finally {
      process.off('uncaughtException', uncaught);
      process.off('unhandledRejection', uncaught);
    }
  });
});

describe('a flow not made with defineFlow is InvalidProvider', () => {
  const raw = { machine: pinMachine, version: 1, entry: pinFlow.entry };
  // defineFlow would refuse it: its awaiting state invokes an actor.
  const invokingAwaiting = setup({ actors: { poll: fromPromise(async () => {}) } }).createMachine({ id: 'x', initial: 'w', states: { w: { tags: [AWAITING], invoke: { src: 'poll' } } } });
  it.each<[string, unknown]>([
    ['a plain object shaped like a flow', raw],
    ['an empty object', {}],
    ["a copy of a defined flow with another machine (defineFlow's checks skipped)", { ...pinFlow, machine: invokingAwaiting }],
  ])('%s: refused before anything runs (Configuration for the browser)', async (_name, flow) => {
    const directory = vi.fn();
    const t = auth([{ ...pinProvider('raw'), flow, get directory() { directory(); return {}; } } as unknown as CommonProviderOptions]);
    const res = await t.client.post('/auth/signin/raw', { csrfToken: await t.csrfToken(), email: ADA });
    expectRefused(t, res, CONFIGURATION, 'InvalidProvider');
    expect(t.logger.errors[0].message).toMatch(/not made with defineFlow/);
    expect(res.setCookie.some((line) => line.startsWith(`${flowCookieOf('raw')}=`))).toBe(false);
    expect(directory).not.toHaveBeenCalled();
  });
});

describe('a custom provider may have any type', () => {
  const resolve = (providers: unknown[]) => resolveConfig({ secret: TEST_SECRET, providers } as AuthConfig, { env: {} });

  it.each(['custom', 'sms-code', 'Totp_2'])('config accepts type %j with a flow', (type) => {
    const config = resolve([{ ...pinProvider(), type }]);
    expect(config.providersById.get('pin')).toMatchObject({ type });
  });

  it('config refuses a type with no built-in flow and no flow of its own: InvalidProvider', () => {
    expect(() => resolve([{ id: 'sms', name: 'SMS', type: 'sms-code' }])).toThrow(/has no built-in flow/);
  });
});
