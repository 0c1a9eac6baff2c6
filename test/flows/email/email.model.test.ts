// Model-based tests of the e-mail flow: paths generated from `emailMachine` (with and without the confirmation
// page), each one played through the HTTP layer with a configuration that makes the real flow take exactly that
// path, against PostgreSQL on PGlite. The traces the runtime logs are checked against the path and feed coverage.
// A path that ends `authenticated` goes on through the standard sign-in tail with its default behaviour; the
// tail's own branches, under the e-mail linking rules, are played at the end of this file. A third variant sends
// codes: its flow store (in memory here) fails or forgets entries where a path says so.
import { randomUUID } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { initialTransition, transition, type AnyEventObject, type AnyMachineSnapshot } from 'xstate';
import { adapterMethods, type Adapter } from '../../../src/core/adapter.js';
import { AdapterError } from '../../../src/core/errors.js';
import type { AuthConfig, SignInCallbackParams } from '../../../src/core/options.js';
import type { TraceEntry } from '../../../src/devtools/graph.js';
import { memoryFlowStore, type FlowStore } from '../../../src/core/flow-store/store.js';
import { emailMachine } from '../../../src/flows/email/machine.js';
import { Email } from '../../../src/providers/email.js';
import { readForms } from '../../e2e/peers/html-form.js';
import { ORIGIN, testAuth, type TestAuth } from '../../support/auth-app.js';
import type { ClientResponse } from '../../support/client.js';
import { createCoverage } from '../../support/flow-coverage.js';
import { modelPaths, type ModelPath } from '../../support/model-paths.js';
import { useMigratedPGlite } from '../../support/pglite.js';
import { done, failed, type Labelled } from '../../support/model-events.js';

const SESSION_COOKIE = 'authchart.session-token';
const MAX_AGE = 600;
const FUTURE = Date.now() + 3_600_000;

/** An event the model sends, labelled with how the HTTP run makes the real flow produce it. */

const dbFails = (actor: string) => failed(actor, 'the database fails', new AdapterError('injected'));
const storeFails = (actor: string) => failed(actor, 'the flow store fails', new AdapterError('injected'));

const modelUser = { id: 'model-user', email: 'model@example.test', emailVerified: null };

const events: Labelled[] = [
  { type: 'REQUEST', branch: 'the sign-in form', email: modelUser.email },
  { type: 'OPEN_LINK', branch: 'the mailed link', token: 'token', email: modelUser.email },
  { type: 'OPEN_LINK', branch: 'a link without its token', email: modelUser.email },
  { type: 'CONFIRM', branch: 'the confirmation form' },
  { type: 'SUBMIT_CODE', branch: 'the code form', code: '123456' },
  { type: 'RESEND', branch: 'send a new code', email: modelUser.email },
  done('normalize', 'a valid address', modelUser.email),
  failed('normalize', 'an invalid address', new TypeError('not an address')),
  done('findRecipient', 'no user yet', null),
  done('findRecipient', 'a stored user', modelUser),
  dbFails('findRecipient'),
  done('checkSignIn', 'signIn returns true', { allowed: true }),
  done('checkSignIn', 'signIn returns a URL', { allowed: false, redirect: `${ORIGIN}/elsewhere` }),
  done('checkSignIn', 'signIn returns false', { allowed: false }),
  failed('checkSignIn', 'signIn throws', new Error('signIn crashed')),
  done('claimCooldown', 'no code sent lately', 'claimed'),
  done('claimCooldown', 'a code sent moments ago', 'cooling'),
  storeFails('claimCooldown'),
  done('storeToken', 'stored', { token: 'token', tokenHash: 'hash', expires: FUTURE }),
  done('storeCode', 'stored', '123456'),
  storeFails('storeCode'),
  done('checkCode', 'the right code', { result: 'passed' }),
  done('checkCode', 'a wrong code', { result: 'wrong', left: 2 }),
  done('checkCode', 'a forgotten code', { result: 'dead', reason: 'gone' }),
  storeFails('checkCode'),
  dbFails('storeToken'),
  done('sendLink', 'sent', undefined),
  failed('sendLink', 'the mail server refuses', new Error('550 mailbox unavailable')),
  done('revokeToken', 'revoked', undefined),
  dbFails('revokeToken'),
  done('peekToken', 'stored', { expires: FUTURE }),
  done('peekToken', 'not stored (wrong token)', null),
  done('peekToken', 'stored but expired', { expires: 0 }),
  done('peekToken', 'the adapter cannot look', 'unchecked'),
  dbFails('peekToken'),
  done('consumeToken', 'found', { expires: FUTURE }),
  done('consumeToken', 'not found', null),
  done('consumeToken', 'found but expired', { expires: 0 }),
  dbFails('consumeToken'),
];

type Variant = 'confirm' | 'one-click' | 'code';
const providerIds: Record<Variant, string> = { confirm: 'email', 'one-click': 'oneclick', code: 'coded' };

function inputFor(variant: Variant) {
  // The model never runs an actor, so its deps are never read.
  const deps = {} as never;
  return { deps, callbackUrl: `${ORIGIN}/dashboard`, providerId: providerIds[variant], startedAt: 0, confirm: variant !== 'one-click', verifyRequestUrl: '', codes: variant === 'code' };
}

/** The state values a path passes through, one per event, computed with xstate's pure `transition`. */
function statesAlong(variant: Variant, path: { events: AnyEventObject[] }): string[] {
  let [snapshot] = initialTransition(emailMachine, inputFor(variant));
  return path.events.map((event) => {
    [snapshot] = transition(emailMachine, snapshot, event as never);
    return JSON.stringify(snapshot.value);
  });
}

/**
 * The model's paths, each ending in a final state: a path that stops midway (its continuations are already
 * on other paths) is completed with the rest of a path that passes through the same state, since the run
 * over HTTP can only stop where the flow stops.
 */
function pathsFor(variant: Variant): ModelPath[] {
  const paths = modelPaths(emailMachine, {
    events: (_snapshot: AnyMachineSnapshot) => events,
    input: inputFor(variant),
    // Guards read only the event and `confirm`, which is fixed per variant: the state value tells snapshots apart.
    stateKey: (snapshot) => JSON.stringify(snapshot.value),
  });
  const isFinal = (id: string) => id === 'linkSent' || id === 'authenticated' || id === 'redirected' || id.startsWith('failed.');
  // Prefer finishing with a sign-in or a sent link: the happy continuation says most about the branch before it.
  const rank = (id: string) => (id === 'authenticated' || id === 'linkSent' ? 0 : 1);
  const complete = paths.filter((p) => isFinal(p.finalState)).sort((a, b) => rank(a.finalState) - rank(b.finalState));
  const short = (type: string) => type.replace(/^xstate\.(done|error)\.actor\.(.+)$/, '$1: $2');
  const completed = paths.map((path) => {
    if (isFinal(path.finalState)) return path;
    const end = statesAlong(variant, path).at(-1);
    for (const other of complete) {
      const at = statesAlong(variant, other).indexOf(end!);
      if (at >= 0) {
        const events = [...path.events, ...other.events.slice(at + 1)];
        return { events, finalState: other.finalState, description: `reaches ${other.finalState}: ${events.map((e) => short(e.type)).join(' → ')} (via ${path.finalState})` };
      }
    }
    throw new Error(`no way to finish ${path.description}`);
  });
  if (variant !== 'code') return completed;
  // The code variant plays what codes add; opening and confirming links is the same as in the confirm variant.
  // A code's entry expires with its token, so a code can never reach an expired token: that branch is the link's.
  return completed.filter((p) => {
    const b = branchesOf(p);
    return ['REQUEST', 'SUBMIT_CODE', 'RESEND'].includes(p.events[0].type) && b.consumeToken !== 'found but expired';
  });
}

/** A path cut where the browser acts (a form posted): each part's event and the branches of what it set off. */
function segmentsOf(path: ModelPath): { event: Labelled; branches: Record<string, string> }[] {
  const out: { event: Labelled; branches: Record<string, string> }[] = [];
  for (const event of path.events as Labelled[]) {
    const actor = /^xstate\.(?:done|error)\.actor\.(.+)$/.exec(event.type)?.[1];
    if (!actor) out.push({ event, branches: { [event.type]: event.branch } });
    else out.at(-1)!.branches[actor] = event.branch;
  }
  return out;
}

/** The branch of every event on a path, by actor name (or event type); the last one where an actor runs twice. */
function branchesOf(path: ModelPath): Record<string, string> {
  const out: Record<string, string> = {};
  for (const event of path.events as Labelled[]) {
    const actor = /^xstate\.(?:done|error)\.actor\.(.+)$/.exec(event.type)?.[1] ?? event.type;
    out[actor] = event.branch;
  }
  return out;
}

// The adapter method each actor's "the database fails" branch breaks.
const faultFor: Record<string, string> = {
  findRecipient: 'getUserByEmail',
  storeToken: 'createVerificationToken',
  revokeToken: 'useVerificationToken',
  peekToken: 'getVerificationToken',
  consumeToken: 'useVerificationToken',
};
// The flow store key each actor's "the flow store fails" branch breaks (by the key's part after the namespace).
const storeFaultFor: Record<string, string> = { claimCooldown: 'cooldown:', storeCode: 'code:', checkCode: 'code:' };
const storeFaults = new Set<string>();
const liveKeys = new Set<string>();
const memory = memoryFlowStore();

/** A memory flow store that fails for keys named in `storeFaults`, and remembers keys so a path can forget codes. */
const fail = (key: string) => {
  if ([...storeFaults].some((f) => key.includes(`:${f}`))) throw new Error(`flow store down (injected for ${key})`);
};
const flowStore: FlowStore = {
  kind: 'memory',
  async set(key, value, ttl) {
    fail(key);
    liveKeys.add(key);
    return memory.set(key, value, ttl);
  },
  async get(key) {
    fail(key);
    return memory.get(key);
  },
  async take(key) {
    fail(key);
    return memory.take(key);
  },
  async add(key, value, ttl) {
    fail(key);
    liveKeys.add(key);
    return memory.add(key, value, ttl);
  },
  async increment(key, ttl) {
    fail(key);
    liveKeys.add(key);
    return memory.increment(key, ttl);
  },
};

/** Forgets every code entry (as expiry or a used link would): the next try finds no code. */
async function forgetCodes(): Promise<void> {
  for (const key of liveKeys) if (key.includes(':code:')) await memory.take(key);
}

const pg = useMigratedPGlite();
const faults = new Set<string>();

/**
 * The real PostgreSQL adapter, with the methods named in `faults` failing as a broken database would; `canPeek`
 * false drops the `getVerificationToken` extension, as an Auth.js adapter lacks it.
 */
function faultyAdapter(canPeek: boolean): Adapter {
  const stored = pg.adapter as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const method of [...adapterMethods, ...(canPeek ? ['getVerificationToken'] : [])]) {
    const fn = stored[method];
    if (typeof fn !== 'function') continue;
    out[method] = (...args: unknown[]) => {
      if (faults.has(method)) throw new Error(`connection terminated (injected into ${method})`);
      return (fn as (...a: unknown[]) => unknown).apply(stored, args);
    };
  }
  return out as Adapter;
}

/**
 * How the standard tail behaves once the link is used: by default (every model path) it finds no owner, creates
 * a verified user and issues a JWT session. The tail tests at the end of the file vary it.
 */
interface Tail {
  /** A user already owns the address before the link is used. */
  owner?: boolean;
  /** The adapter method that fails once the link is used. */
  fault?: 'getUserByEmail' | 'createUser' | 'updateUser';
  signIn?: 'signIn returns a URL' | 'signIn returns false' | 'signIn throws';
  issue?: 'jwt returns null' | 'jwt throws';
}

interface Scenario {
  /** The signIn callback's answer when asked whether to send a link. */
  request: string;
  send: string;
  tail: Tail;
}
const allGood: Scenario = { request: 'signIn returns true', send: 'sent', tail: {} };
let scenario: Scenario = allGood;
const outbox: { identifier: string; url: string; code?: string }[] = [];

async function answer(branch: string | undefined): Promise<boolean | string> {
  if (branch === 'signIn throws') throw new Error('signIn crashed');
  if (branch === 'signIn returns a URL') return '/elsewhere';
  return branch === undefined || branch === 'signIn returns true';
}

/** The activity records every instance wrote, in order (each path reads those after its mark). */
const activityLog: { kind: string; reason?: string | null }[] = [];

function instance(emitted: string[], signInCalls: SignInCallbackParams[], canPeek: boolean): TestAuth {
  const send = async ({ identifier, url, code }: { identifier: string; url: string; code?: string }) => {
    if (scenario.send === 'the mail server refuses') throw new Error('550 mailbox unavailable');
    outbox.push({ identifier, url, code });
  };
  const record = (name: string) => async () => void emitted.push(name);
  const config: Partial<AuthConfig> = {
    activity: { sinks: [{ name: 'test', write: (records) => void activityLog.push(...records) }] },
    adapter: faultyAdapter(canPeek),
    flowStore,
    // JWT sessions, so that the jwt callback can refuse at issue time (the tail's issuingSession branches).
    session: { strategy: 'jwt' },
    callbacks: {
      signIn: async (params) => {
        signInCalls.push(params);
        return answer(params.email?.verificationRequest ? scenario.request : scenario.tail.signIn);
      },
      jwt: async ({ token }) => {
        if (scenario.tail.issue === 'jwt returns null') return null;
        if (scenario.tail.issue === 'jwt throws') throw new Error('jwt crashed');
        return token;
      },
    },
    events: { createUser: record('createUser'), updateUser: record('updateUser'), signIn: record('signIn') },
  };
  return testAuth({
    providers: [
      Email({ id: 'email', maxAge: MAX_AGE, sendVerificationRequest: send }),
      Email({ id: 'oneclick', maxAge: MAX_AGE, confirm: false, sendVerificationRequest: send }),
      Email({ id: 'coded', maxAge: MAX_AGE, code: { maxAttempts: 3, resendCooldown: 60 }, sendVerificationRequest: send }),
    ],
    ...config,
  });
}

interface Run {
  t: TestAuth;
  res: ClientResponse;
  email: string;
  /** The id of the user who owned the address before the run, if one did. */
  ownerId?: string;
  emitted: string[];
  signInCalls: SignInCallbackParams[];
  /** The e-mail machine's transitions, across the requests of the run. */
  trace: TraceEntry[];
  /** The standard tail's transitions, when it ran. */
  tailTrace: TraceEntry[];
  statuses: string[];
  mailed: boolean;
  /** The activity records of the path's requests. */
  activity: { kind: string; reason?: string | null }[];
}

/** Requests a real link for `email` with everything succeeding, outside the path under test. */
async function mailedLink(t: TestAuth, providerId: string, email: string): Promise<string> {
  const csrfToken = await t.csrfToken();
  const res = await t.client.post(`/auth/signin/${providerId}`, { csrfToken, email, callbackUrl: '/dashboard' });
  if (providerId === 'coded') expect(res.status, 'setup: code page').toBe(200);
  else expect(res.location?.href, 'setup: link requested').toBe(`${ORIGIN}/auth/verify-request?provider=${providerId}&type=email`);
  const mail = outbox.find((m) => m.identifier === email);
  if (!mail) throw new Error('setup: no link was sent');
  return mail.url;
}

/** Configures the instance so that the real flow takes the path's branches, then makes the path's requests. */
async function play(variant: Variant, path: ModelPath, tail: Tail = {}): Promise<Run> {
  const b = branchesOf(path);
  const segments = segmentsOf(path);
  // What the first request sets off (a path with "send a new code" runs some actors again, each as its part says);
  // a link's paths are set up whole, as its faults are injected once the link is opened.
  const b1 = path.events[0].type === 'REQUEST' ? segments[0].branches : b;
  const providerId = providerIds[variant];
  const email = `m-${randomUUID()}@model.test`;
  const emitted: string[] = [];
  const signInCalls: SignInCallbackParams[] = [];
  const t = instance(emitted, signInCalls, b.peekToken !== 'the adapter cannot look');
  scenario = allGood;
  faults.clear();
  vi.useFakeTimers({ toFake: ['Date'] });
  const t0 = Date.now();
  vi.setSystemTime(t0);
  try {
    let ownerId: string | undefined;
    if (b.findRecipient === 'a stored user' || tail.owner) {
      ownerId = randomUUID();
      await pg.adapter.createUser({ id: ownerId, email, emailVerified: null });
    }
    let link: string | undefined;
    if (b.OPEN_LINK === 'the mailed link') {
      link = await mailedLink(t, providerId, email);
      outbox.length = 0;
      signInCalls.length = 0;
      // With the confirmation page the link is looked up on opening: a wrong or expired one stops there, and the
      // consume step can only miss a token used up (or expire) between opening and confirming.
      const oneClick = variant === 'one-click';
      if (b.peekToken === 'not stored (wrong token)' || (oneClick && b.consumeToken === 'not found')) {
        const url = new URL(link);
        url.searchParams.set('token', 'f'.repeat(64));
        link = url.href;
      }
      if (b.peekToken === 'stored but expired' || (oneClick && b.consumeToken === 'found but expired')) vi.setSystemTime(t0 + MAX_AGE * 1000 + 1000);
    }
    if (b1.claimCooldown === 'a code sent moments ago') {
      await mailedLink(t, providerId, email);
      outbox.length = 0;
      signInCalls.length = 0;
    }
    for (const [actor, branch] of Object.entries(b1)) if (branch === 'the database fails') faults.add(faultFor[actor]);
    // A code's faults start at the first try: sending it had to store it.
    const codeTried = path.events.some((e) => e.type === 'SUBMIT_CODE');
    for (const [actor, branch] of Object.entries(b1)) if (branch === 'the flow store fails' && !(actor === 'checkCode' && codeTried)) storeFaults.add(storeFaultFor[actor]);
    scenario = { request: b1.checkSignIn ?? allGood.request, send: b1.sendLink ?? allGood.send, tail };

    const mark = t.logger.debugs.length;
    const activityMark = activityLog.length;
    let res: ClientResponse;
    const first = path.events[0].type;
    if (first === 'REQUEST') {
      const typed = b.normalize === 'an invalid address' ? 'not an address' : `  ${email.toUpperCase()} `;
      const csrfToken = await t.csrfToken();
      res = await t.client.post(`/auth/signin/${providerId}`, { csrfToken, email: typed, callbackUrl: '/dashboard' });
      // Then each form the path posts: a try at the code, or "send a new code", set up as its part's branches say.
      for (const { event, branches: sb } of segments.slice(1)) {
        expect(res.status, 'a code page').toBe(200);
        const forms = readForms(await res.text());
        if (event.type === 'SUBMIT_CODE') {
          const check = sb.checkCode;
          if (check === 'the flow store fails') storeFaults.add('code:');
          if (check === 'a forgotten code') await forgetCodes();
          if (check === 'the right code') {
            if (sb.consumeToken === 'not found') await pg.db.query('DELETE FROM verification_token WHERE identifier = $1', [email]);
            if (sb.consumeToken === 'the database fails') faults.add('useVerificationToken');
            if (tail.fault) faults.add(tail.fault);
          }
          const mailed = outbox.filter((m) => m.identifier === email).at(-1)?.code;
          const code = check === 'a wrong code' ? (mailed === '000000' ? '111111' : '000000') : mailed!;
          const form = forms.find((f) => 'code' in f.fields);
          // The page of a dead code has no code field: an older copy of the code page posts it.
          res = form
            ? await t.client.post(new URL(form.action, res.requestUrl), { ...form.fields, code })
            : await t.client.post(`/auth/callback/${providerId}`, { csrfToken: forms[0].fields.csrfToken, code });
        } else {
          expect(event.type).toBe('RESEND');
          // The cooldown (60 s) claimed by the last mail is over, or not.
          if (sb.claimCooldown === 'no code sent lately') vi.setSystemTime(Date.now() + 61_000);
          if (sb.claimCooldown === 'the flow store fails') storeFaults.add('cooldown:');
          if (sb.storeToken === 'the database fails') faults.add('createVerificationToken');
          if (sb.storeCode === 'the flow store fails') storeFaults.add('code:');
          if (sb.revokeToken === 'the database fails') faults.add('useVerificationToken');
          scenario = { ...scenario, send: sb.sendLink ?? allGood.send };
          const form = forms.find((f) => f.fields.action === 'resend');
          expect(form, '"send a new code" on the page').toBeDefined();
          res = await t.client.post(new URL(form!.action, res.requestUrl), form!.fields);
        }
      }
    } else if (first === 'SUBMIT_CODE' || first === 'RESEND') {
      // A code, or a new one asked for, posted by a browser that never asked for one.
      const csrfToken = await t.csrfToken();
      res = await t.client.post(`/auth/callback/${providerId}`, first === 'RESEND' ? { csrfToken, action: 'resend' } : { csrfToken, code: '123456' });
    } else if (first === 'CONFIRM') {
      // Someone posts the confirmation form without having opened a link in this browser.
      const csrfToken = await t.csrfToken();
      res = await t.client.post(`/auth/callback/${providerId}`, { csrfToken });
    } else if (b.OPEN_LINK === 'a link without its token') {
      res = await t.client.get(`/auth/callback/${providerId}?email=${encodeURIComponent(email)}&callbackUrl=%2Fdashboard`);
    } else {
      // The tail's faults start once the link is used: the request above had to find the address's owner.
      if (tail.fault && !b.CONFIRM) faults.add(tail.fault);
      res = await t.client.get(link!);
      if (b.CONFIRM) {
        expect(res.status, 'the confirmation page').toBe(200);
        const page = res;
        const body = await page.text();
        // The address is named only when a stored token was found for it.
        expect(body.includes(email), 'the page names the address').toBe(b.peekToken === 'stored');
        if (b.consumeToken === 'not found') await pg.db.query('DELETE FROM verification_token WHERE identifier = $1', [email]);
        if (b.consumeToken === 'found but expired') vi.setSystemTime(t0 + MAX_AGE * 1000 + 1000);
        if (tail.fault) faults.add(tail.fault);
        const [form] = readForms(body);
        res = await t.client.post(new URL(form.action, page.requestUrl), form.fields);
      }
    }
    const logged = t.logger.debugs.slice(mark).filter((d) => d.message.startsWith('flow email '));
    const traces = logged.flatMap((d) => (d.metadata as { trace: TraceEntry[] }).trace);
    return {
      t,
      res,
      email,
      ownerId,
      emitted,
      signInCalls,
      trace: traces.filter((e) => e.machine === undefined),
      tailTrace: traces.filter((e) => e.machine === 'signin'),
      statuses: logged.map((d) => d.message.slice('flow email '.length)),
      mailed: outbox.some((m) => m.identifier === email),
      activity: activityLog.slice(activityMark),
    };
  } finally {
    faults.clear();
    storeFaults.clear();
    scenario = allGood;
    vi.useRealTimers();
  }
}

/** What the browser must see, and what must be logged, at the end of each final state. */
function expectedFor(path: ModelPath, b: Record<string, string>, providerId: string): { status: string; location: string; logged: string[] } {
  const error = (type: string) => `${ORIGIN}/auth/error?error=${type}`;
  const emailSignInError = `${ORIGIN}/auth/signin?error=EmailSignInError`;
  switch (path.finalState) {
    case 'linkSent':
      return { status: 'redirected', location: `${ORIGIN}/auth/verify-request?provider=${providerId}&type=email`, logged: [] };
    case 'authenticated':
      return { status: 'signedIn', location: `${ORIGIN}/dashboard`, logged: [] };
    case 'redirected':
      return { status: 'redirected', location: `${ORIGIN}/elsewhere`, logged: [] };
    case 'failed.invalidAddress':
    case 'failed.emailSignIn':
      return { status: 'failed', location: emailSignInError, logged: ['EmailSignInError'] };
    case 'failed.accessDenied':
      return { status: 'failed', location: error('AccessDenied'), logged: ['AccessDenied'] };
    case 'failed.linkMalformed':
    case 'failed.confirmationExpired':
    case 'failed.linkUnknown':
    case 'failed.linkExpired':
    case 'failed.noCodeSent':
    case 'failed.codeDead':
      return { status: 'failed', location: error('Verification'), logged: ['Verification'] };
    case 'failed.cooldown':
      return { status: 'failed', location: `${ORIGIN}/auth/signin?error=RateLimited`, logged: ['RateLimited'] };
    case 'failed.callbackRoute': {
      const adapterFailed = Object.values(b).includes('the database fails') || Object.values(b).includes('the flow store fails');
      return { status: 'failed', location: error('Configuration'), logged: [adapterFailed ? 'AdapterError' : 'CallbackRouteError'] };
    }
    default:
      throw new Error(`no expectation for ${path.finalState}`);
  }
}

const sessionCookiesOf = (res: ClientResponse) => res.setCookie.filter((line) => line.startsWith(`${SESSION_COOKIE}=`) && !/max-age=0/i.test(line));

async function tokensLeft(email: string): Promise<number> {
  const { rows } = await pg.db.query<{ n: number }>('SELECT count(*)::int AS n FROM verification_token WHERE identifier = $1', [email]);
  return rows[0].n;
}

const coverage = createCoverage(emailMachine);
const variants: Variant[] = ['confirm', 'one-click', 'code'];
const pathsByVariant = new Map(variants.map((v) => [v, pathsFor(v)] as const));

describe.each(variants)('email flow, model paths (%s)', (variant) => {
  const paths = pathsByVariant.get(variant)!;
  const providerId = providerIds[variant];

  it.each(paths.map((p) => [`${p.description} [${Object.values(branchesOf(p)).join(', ')}]`, p] as const))('%s', async (_name, path) => {
    const b = branchesOf(path);
    const want = expectedFor(path, b, providerId);
    const run = await play(variant, path);
    coverage.record(run.trace);

    // The real flow took the model's path, transition by transition, across the requests it needed.
    expect(run.trace.map((e) => e.event)).toEqual(path.events.map((e) => e.type));
    expect(run.trace.at(-1)?.to).toBe(path.finalState);
    expect(run.statuses.at(-1)).toBe(want.status);
    // The activity log: a sign-in (a new user's: its sign-up too) or a failure, one record per outcome.
    const kinds = run.activity.map((r) => r.kind);
    if (want.status === 'signedIn') expect(kinds).toEqual(run.emitted.includes('createUser') ? ['signUp.completed', 'signIn.succeeded'] : ['signIn.succeeded']);
    else if (want.status === 'failed') {
      expect(kinds).toEqual(['signIn.failed']);
      expect(run.activity[0].reason).toBe(want.logged[0]);
    } else expect(kinds).toEqual([]);
    if (b.CONFIRM && b.OPEN_LINK) expect(run.statuses[0]).toBe('paused');
    // Only a proven address reaches the standard tail, which here signs the new user in.
    expect(run.tailTrace.at(-1)?.to).toBe(path.finalState === 'authenticated' ? 'resolved' : undefined);

    expect(run.res.status).toBe(302);
    expect(run.res.headers.get('location')).toBe(want.location);
    expect(sessionCookiesOf(run.res).length > 0, 'a session cookie is set').toBe(path.finalState === 'authenticated');
    expect(run.t.logger.errorTypes()).toEqual(want.logged);

    // The signIn callback is asked before a link is stored, about the stored user when there is one; once the
    // link is used, the tail asks it again, as a sign-in.
    if (b.checkSignIn) {
      expect(run.signInCalls).toHaveLength(path.finalState === 'authenticated' ? 2 : 1);
      const [call] = run.signInCalls;
      expect(call.email).toEqual({ verificationRequest: true });
      expect(call.account).toMatchObject({ provider: providerId, type: 'email', providerAccountId: run.email });
      expect(call.user).toMatchObject(run.ownerId ? { id: run.ownerId, email: run.email } : { email: run.email, emailVerified: null });
    } else if (path.finalState === 'authenticated') {
      expect(run.signInCalls).toHaveLength(1);
      expect(run.signInCalls[0].email).toBeUndefined();
      expect(run.signInCalls[0].account).toMatchObject({ provider: providerId, type: 'email', providerAccountId: run.email });
    } else {
      expect(run.signInCalls).toEqual([]);
    }

    // Side effects: events where they happened, mail only when the flow says it was sent.
    expect(run.emitted).toEqual(path.finalState === 'authenticated' ? ['createUser', 'signIn'] : []);
    expect(run.mailed).toBe(path.events.some((e) => e.type === 'xstate.done.actor.sendLink'));

    const tokenLeft =
      path.finalState === 'linkSent' || // the new link waits to be used
      b.revokeToken === 'the database fails' || // the unsent token could not be removed (and the log says so)
      b.peekToken === 'not stored (wrong token)' || // the real token was never presented
      b.peekToken === 'stored but expired' || // opening a link uses nothing up
      b.peekToken === 'the database fails' ||
      (variant === 'one-click' && b.consumeToken === 'not found') || // the real token was never presented
      b.consumeToken === 'the database fails' ||
      // Codes: the check could not run, or the code was forgotten (its token was not); or an earlier mail's token.
      (b.sendLink === 'sent' && path.finalState !== 'authenticated' && b.consumeToken !== 'not found') ||
      b.claimCooldown === 'a code sent moments ago';
    if (path.events.some((e) => e.type === 'RESEND') && b.REQUEST) {
      // With "send a new code", each mail stored its own token: those stored, less those revoked or used.
      const count = (type: string) => path.events.filter((e) => e.type === type).length;
      const stored = count('xstate.done.actor.storeToken') + (b.claimCooldown !== undefined && segmentsOf(path)[0].branches.claimCooldown === 'a code sent moments ago' ? 1 : 0);
      const left = b.consumeToken === 'not found' ? 0 : stored - count('xstate.done.actor.revokeToken') - (path.finalState === 'authenticated' ? 1 : 0);
      expect(await tokensLeft(run.email), 'tokens stored for the address').toBe(left);
    } else expect(await tokensLeft(run.email), 'tokens stored for the address').toBe(tokenLeft ? 1 : 0);

    if (path.finalState === 'authenticated') {
      const session = (await (await run.t.client.get('/auth/session')).json()) as { user?: { email?: string } } | null;
      expect(session?.user?.email).toBe(run.email);
      const user = await pg.adapter.getUserByEmail(run.email);
      expect(user?.emailVerified).toBeInstanceOf(Date);
    }
    if (b.revokeToken === 'the database fails') {
      const error = run.t.logger.errors[0] as { cause?: { expected?: unknown; actual?: unknown; err?: Error } };
      // What stopped the send stays the evidence: the mail server, or the flow store that could not keep the code.
      expect(error.cause?.err?.message).toMatch(b.storeCode === 'the flow store fails' ? /^flow store down/ : /^550 mailbox unavailable$/);
      expect(String(error.cause?.actual)).toMatch(/^still stored: /);
    }
  });
});

describe('email flow coverage', () => {
  it('took every state and every transition of the machine', () => {
    console.log(`flow coverage: ${coverage.format()}`);
    const report = coverage.report();
    expect(report.states.total).toBeGreaterThan(18);
    coverage.assertComplete();
    expect(report.transitions.covered).toBe(report.transitions.total);
  });
});

// Once the link is used, the standard sign-in tail decides, under the e-mail rules (resolveEmailUser): the
// address's owner is marked verified, or a verified user is created; the signIn callback is asked before either.
// These were the e-mail machine's own states before it ended in the tail; they stay pinned here for e-mail.
describe.each(['confirm', 'one-click'] as Variant[])('after the link: the standard tail under the e-mail rules (%s)', (variant) => {
  const path = pathsByVariant.get(variant)!.find((p) => p.finalState === 'authenticated' && Object.values(branchesOf(p)).every((x) => ['the mailed link', 'the confirmation form', 'stored', 'found'].includes(x)))!;
  const cases: { name: string; tail: Tail; state: string; status: string; location: string; logged: string[]; emitted: string[] }[] = [
    { name: 'the owner is marked verified', tail: { owner: true }, state: 'resolved', status: 'signedIn', location: `${ORIGIN}/dashboard`, logged: [], emitted: ['updateUser', 'signIn'] },
    { name: 'finding the owner fails', tail: { fault: 'getUserByEmail' }, state: 'failed.callbackRoute', status: 'failed', location: `${ORIGIN}/auth/error?error=Configuration`, logged: ['AdapterError'], emitted: [] },
    { name: 'creating the user fails', tail: { fault: 'createUser' }, state: 'failed.callbackRoute', status: 'failed', location: `${ORIGIN}/auth/error?error=Configuration`, logged: ['AdapterError'], emitted: [] },
    { name: 'marking the owner verified fails', tail: { owner: true, fault: 'updateUser' }, state: 'failed.callbackRoute', status: 'failed', location: `${ORIGIN}/auth/error?error=Configuration`, logged: ['AdapterError'], emitted: [] },
    { name: 'signIn returns a URL', tail: { signIn: 'signIn returns a URL' }, state: 'redirected', status: 'redirected', location: `${ORIGIN}/elsewhere`, logged: [], emitted: [] },
    { name: 'signIn returns false', tail: { signIn: 'signIn returns false' }, state: 'failed.accessDenied', status: 'failed', location: `${ORIGIN}/auth/error?error=AccessDenied`, logged: ['AccessDenied'], emitted: [] },
    { name: 'signIn throws', tail: { signIn: 'signIn throws' }, state: 'failed.accessDenied', status: 'failed', location: `${ORIGIN}/auth/error?error=AccessDenied`, logged: ['AccessDenied'], emitted: [] },
    { name: 'jwt returns null', tail: { issue: 'jwt returns null' }, state: 'resolved', status: 'failed', location: `${ORIGIN}/auth/error?error=AccessDenied`, logged: ['AccessDenied'], emitted: ['createUser'] },
    { name: 'jwt throws', tail: { issue: 'jwt throws' }, state: 'resolved', status: 'failed', location: `${ORIGIN}/auth/error?error=Configuration`, logged: ['CallbackRouteError'], emitted: ['createUser'] },
  ];

  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const run = await play(variant, path, c.tail);
    expect(run.trace.at(-1)?.to).toBe('authenticated');
    expect(run.tailTrace.at(-1)?.to).toBe(c.state);
    expect(run.statuses.at(-1)).toBe(c.status);
    expect(run.res.headers.get('location')).toBe(c.location);
    expect(run.t.logger.errorTypes()).toEqual(c.logged);
    expect(run.emitted).toEqual(c.emitted);
    expect(sessionCookiesOf(run.res).length > 0, 'a session cookie is set').toBe(c.status === 'signedIn');
    // The link is used up whatever the tail decides: it proved the address once.
    expect(await tokensLeft(run.email)).toBe(0);

    const user = await pg.adapter.getUserByEmail(run.email);
    if (c.tail.owner) {
      expect(user?.id).toBe(run.ownerId);
      expect(user?.emailVerified instanceof Date, 'the owner is marked verified').toBe(c.state === 'resolved');
    } else {
      // The signIn callback is asked before any user is written: a refusal leaves none behind.
      expect(user !== null, 'a user was created').toBe(c.emitted.includes('createUser'));
    }
    if (c.status === 'signedIn') {
      const session = (await (await run.t.client.get('/auth/session')).json()) as { user?: { email?: string } } | null;
      expect(session?.user?.email).toBe(run.email);
    }
  });
});
