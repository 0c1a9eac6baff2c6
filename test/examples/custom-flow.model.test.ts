// The example custom flow (examples/custom-flow), tested as an app would test its own flow: paths generated from
// its machine with authchart/devtools, each played over HTTP against the example app on an embedded PostgreSQL,
// 100 % of states and transitions; then what a code sign-in must survive (a bound flow cookie, replays, second
// guesses, expiry, a failing delivery), never with a 500 or a session.
import { createHash, randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AnyEventObject } from 'xstate';
import { type Adapter, type AnyProvider } from 'authchart';
import { defineFlow, type FlowRecord, type TraceEntry } from 'authchart/flow';
import { decode } from 'authchart/jwt';
import { createCoverage, modelPaths, type ModelPath } from 'authchart/devtools';
import { CODE_TTL_MS, emailCodeFlow, emailCodeMachine } from '../../examples/custom-flow/machine.js';
import { EmailCode } from '../../examples/custom-flow/provider.js';
import { createEmailCodeApp, type SentCode } from '../../examples/custom-flow/server.js';
import { ORIGIN, recordingLogger, TEST_SECRET, type RecordingLogger } from '../support/auth-app.js';
import { createClient, type ClientResponse, type TestClient } from '../support/client.js';
import { useMigratedPGlite } from '../support/pglite.js';
import { forms, hidden, injectedMarkup, tags, text } from '../http/pages/dom.js';

const FLOW_COOKIE = 'authchart.flow.email-code';
const SESSION_COOKIE = 'authchart.session-token';
const sha256 = (s: string) => createHash('sha256').update(s).digest('base64url');

// ---- the model -------------------------------------------------------------------------------------------------

/** An event the model sends, labelled with what makes the real flow take it. */
type Step = AnyEventObject & { branch: string };
const done = (actor: string, branch: string, output?: unknown): Step => ({ type: `xstate.done.actor.${actor}`, branch, output });
const failed = (actor: string, branch: string): Step => ({ type: `xstate.error.actor.${actor}`, branch, error: new Error(branch) });
const issued = (branch: string, expiresAt: number) => done('issueCode', branch, { nonce: 'n', code: '123456', codeHash: sha256('n:123456'), expiresAt });

const steps: Step[] = [
  { type: 'REQUEST', email: 'model@example.com', branch: 'an address' },
  { type: 'REQUEST', email: 'not an address', branch: 'not an address' },
  issued('stored', Number.MAX_SAFE_INTEGER),
  issued('stored, then 10 minutes pass', 1),
  failed('issueCode', 'the database fails'),
  done('sendCode', 'sent'),
  failed('sendCode', 'send throws'),
  { type: 'SUBMIT', code: '123456', branch: 'the right code' },
  { type: 'SUBMIT', code: '000000', branch: 'a wrong code' },
  done('useToken', 'the token is there', { identifier: 'email-code:model@example.com', token: sha256('n'), expires: new Date() }),
  done('useToken', 'the token is gone (replayed cookie)', null),
  failed('useToken', 'the database fails'),
];

const modelInput = {
  deps: { req: { body: {}, authUrl: `${ORIGIN}/auth` }, provider: { id: 'email-code' }, callbackUrl: '/' },
  callbackUrl: '/',
  providerId: 'email-code',
  startedAt: 0,
};
const paths: ModelPath[] = modelPaths(emailCodeMachine, { events: () => steps, input: modelInput });

/** What each step of a path says about how the real flow must be steered, by short event name. */
function branchesOf(path: ModelPath): Record<string, string> {
  return Object.fromEntries((path.events as Step[]).map((e) => [e.type.replace(/^xstate\.(done|error)\.actor\./, ''), e.branch]));
}
const label = (path: ModelPath) => `${path.description} [${(path.events as Step[]).map((e) => e.branch).join('; ')}]`;

// ---- the world: the example app on PGlite, with a delivery and a database that fail on request -------------------

const pg = useMigratedPGlite();

interface World {
  outbox: SentCode[];
  logger: RecordingLogger;
  bounce: Set<string>;
  failCreate: Set<string>;
  failUse: Set<string>;
  browser(): TestClient;
  records(): FlowRecord[];
}

function world(options: { providers?: (send: (s: SentCode) => void) => AnyProvider[] } = {}): World {
  const outbox: SentCode[] = [];
  const bounce = new Set<string>();
  const failCreate = new Set<string>();
  const failUse = new Set<string>();
  const logger = recordingLogger();
  const real = pg.adapter;
  const adapter: Adapter = {
    ...real,
    createVerificationToken: async (t) => {
      if (failCreate.has(t.identifier)) throw new Error('database unreachable');
      return real.createVerificationToken(t);
    },
    useVerificationToken: async (p) => {
      if (failUse.has(p.identifier)) throw new Error('database unreachable');
      return real.useVerificationToken(p);
    },
  };
  const send = (sent: SentCode) => {
    if (bounce.has(sent.email)) throw new Error('mailbox unavailable');
    outbox.push(sent);
  };
  const { app } = createEmailCodeApp({ adapter, send, secret: TEST_SECRET, logger, providers: options.providers?.(send) });
  return {
    outbox,
    logger,
    bounce,
    failCreate,
    failUse,
    browser: () => createClient({ fetch: (r) => Promise.resolve(app.fetch(r)), baseUrl: ORIGIN }),
    records: () => logger.debugs.filter((d) => d.message.startsWith('flow email-code ')).map((d) => d.metadata as FlowRecord),
  };
}

let w: World;
beforeAll(() => {
  w = world();
});
afterEach(() => {
  vi.useRealTimers();
});

async function csrfToken(browser: TestClient): Promise<string> {
  return ((await (await browser.get('/auth/csrf')).json()) as { csrfToken: string }).csrfToken;
}

/** Another browser holding a copy of every cookie of `browser` (a replay by the cookie's holder). */
function copyOf(browser: TestClient, world = w): TestClient {
  const copy = world.browser();
  for (const c of browser.cookies.all()) copy.cookies.set(c.name, c.value, ORIGIN);
  return copy;
}

const sessionSet = (res: ClientResponse) => res.setCookie.some((l) => l.startsWith(`${SESSION_COOKIE}=`) && !/max-age=0/i.test(l));
const newAddress = () => `user-${randomUUID().slice(0, 8)}@example.com`;
const otherCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');
/** Ten minutes and a second later: past the code's expiry, within the flow cookie's 15 minutes. */
function codeExpires(): void {
  vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
  vi.setSystemTime(Date.now() + CODE_TTL_MS + 1_000);
}

interface Run {
  responses: ClientResponse[];
  browser: TestClient;
  email: string;
  trace: TraceEntry[];
  tail: TraceEntry[];
  errors: string[];
}

/** Plays one model path over HTTP: the browser posts the address, then the code, steered into the path's branches. */
async function play(path: ModelPath): Promise<Run> {
  const b = branchesOf(path);
  const browser = w.browser();
  const email = b.REQUEST === 'not an address' ? `not an address ${randomUUID()}` : newAddress();
  const identifier = `email-code:${email}`;
  if (b.issueCode === 'the database fails') w.failCreate.add(identifier);
  if (b.sendCode === 'send throws') w.bounce.add(email);
  if (b.useToken === 'the database fails') w.failUse.add(identifier);
  const token = await csrfToken(browser);
  const responses: ClientResponse[] = [];
  const own: FlowRecord[] = [];
  let errors: string[] = [];
  const request = async (send: () => Promise<ClientResponse>) => {
    const [records, logged] = [w.records().length, w.logger.errors.length];
    responses.push(await send());
    own.push(...w.records().slice(records));
    errors.push(...w.logger.errorTypes().slice(logged));
  };

  if (b.REQUEST) await request(() => browser.post('/auth/signin/email-code', { csrfToken: token, email, callbackUrl: '/dashboard' }));
  if (b.SUBMIT) {
    const sent = w.outbox.find((s) => s.email === email)?.code ?? '123456';
    const code = b.SUBMIT === 'the right code' ? sent : otherCode(sent);
    if (b.issueCode === 'stored, then 10 minutes pass') codeExpires();
    // The token is gone: the same flow cookie was submitted once already.
    if (b.useToken?.startsWith('the token is gone')) await copyOf(browser).post('/auth/callback/email-code', { csrfToken: token, code });
    errors = [];
    await request(() => browser.post('/auth/callback/email-code', { csrfToken: token, code }));
  }
  const trace = own.flatMap((r) => r.trace);
  return { responses, browser, email, errors, trace: trace.filter((e) => e.machine === undefined), tail: trace.filter((e) => e.machine === 'signin') };
}

function expectedFor(path: ModelPath): { location: string; logged: string[] } {
  const state = path.finalState;
  if (state === 'authenticated') return { location: `${ORIGIN}/dashboard`, logged: [] };
  if (state === 'failed.invalidAddress' || state === 'failed.sendFailed') return { location: `${ORIGIN}/auth/signin?error=EmailSignInError`, logged: ['EmailSignInError'] };
  if (state === 'failed.callbackRoute') return { location: `${ORIGIN}/auth/error?error=Configuration`, logged: ['AdapterError'] };
  return { location: `${ORIGIN}/auth/error?error=Verification`, logged: ['Verification'] };
}

const coverage = createCoverage(emailCodeMachine);
afterAll(() => {
  console.log(`flow coverage: ${coverage.format()}`);
});

describe('email-code flow, the model', () => {
  it('has a path to every final state', () => {
    expect([...new Set(paths.map((p) => p.finalState))].sort()).toEqual([
      'authenticated', 'failed.callbackRoute', 'failed.expired', 'failed.invalidAddress', 'failed.noCodeSent', 'failed.sendFailed', 'failed.used', 'failed.wrongCode',
    ]);
  });

  it.each(paths.map((p) => [label(p), p] as const))('%s', async (_name, path) => {
    const run = await play(path);
    coverage.record(run.trace);
    const want = expectedFor(path);

    // The real flow took the model's path, transition by transition, over one or two requests.
    expect(run.trace.map((e) => e.event)).toEqual(path.events.map((e) => e.type));
    expect(run.trace.at(-1)?.to).toBe(path.finalState);
    for (const res of run.responses) expect(res.status).toBeLessThan(500);
    const last = run.responses.at(-1)!;
    expect(last.status).toBe(302);
    expect(last.headers.get('location')).toBe(want.location);
    expect(run.errors).toEqual(want.logged);
    // A flow that paused answered the code form and sealed itself; the last request spent the flow cookie.
    if (run.responses.length === 2) {
      expect(run.responses[0].status).toBe(200);
      expect(run.responses[0].setCookie.some((l) => l.startsWith(`${FLOW_COOKIE}=`) && !/max-age=0/i.test(l))).toBe(true);
      expect(last.setCookie.some((l) => l.startsWith(`${FLOW_COOKIE}=;`) && /max-age=0/i.test(l))).toBe(true);
    }

    const session = (await (await run.browser.get('/auth/session')).json()) as { user?: { email?: string } } | null;
    if (path.finalState !== 'authenticated') {
      expect(run.responses.some(sessionSet), 'no session cookie').toBe(false);
      expect(run.tail, 'the sign-in tail never runs for a failed flow').toEqual([]);
      expect(session).toBeNull();
      return;
    }
    expect(sessionSet(last)).toBe(true);
    expect(run.tail.at(-1)?.to).toBe('resolved');
    expect(session?.user?.email).toBe(run.email);
    // The tail linked the flow's account (the OAuth rules, for a custom type) to a new user with the address.
    const rows = await pg.db.query<{ email: string; type: string }>(
      'SELECT u.email, a.type FROM accounts a JOIN users u ON u.id = a.user_id WHERE a.provider = $1 AND a.provider_account_id = $2',
      ['email-code', run.email],
    );
    expect(rows.rows).toEqual([{ email: run.email, type: 'email-code' }]);
  });
});

describe('email-code flow coverage', () => {
  it('took every state and every transition of the machine', () => {
    coverage.assertComplete();
    const report = coverage.report();
    expect(report.states.covered).toBe(report.states.total);
    expect(report.transitions.covered).toBe(report.transitions.total);
  });
});

// ---- what a code sign-in must survive -------------------------------------------------------------------------

/** Starts a sign-in in a fresh browser of `world`: the browser holds the flow cookie, the code is in the outbox. */
async function start(world = w, provider = 'email-code'): Promise<{ browser: TestClient; email: string; code: string; csrf: string; form: ClientResponse }> {
  const browser = world.browser();
  const email = newAddress();
  const csrf = await csrfToken(browser);
  const form = await browser.post(`/auth/signin/${provider}`, { csrfToken: csrf, email });
  expect(form.status).toBe(200);
  return { browser, email, csrf, form, code: world.outbox.find((s) => s.email === email)!.code };
}

async function submit(browser: TestClient, csrf: string, code: string, provider = 'email-code'): Promise<ClientResponse> {
  const res = await browser.post(`/auth/callback/${provider}`, { csrfToken: csrf, code });
  expect(res.status).toBeLessThan(500);
  expect(sessionSet(res) ? res.headers.get('location') : 'no session').not.toMatch(/error=/);
  return res;
}

const refused = (res: ClientResponse, type: string) => {
  expect(res.status).toBe(302);
  expect(res.headers.get('location')).toBe(type === 'Verification' || type === 'Configuration' ? `${ORIGIN}/auth/error?error=${type}` : `${ORIGIN}/auth/signin?error=${type}`);
  expect(sessionSet(res)).toBe(false);
};

describe('email-code flow, attacks and edges', () => {
  it('signs in with the right code: a session cookie, and GET session returns the user', async () => {
    const { browser, email, code, csrf } = await start();
    const res = await submit(browser, csrf, code);
    // The destination passed the redirect callback (a custom flow's URLs always do): the origin, as a URL.
    expect(res.headers.get('location')).toBe(new URL(ORIGIN).href);
    expect(sessionSet(res)).toBe(true);
    expect(((await (await browser.get('/auth/session')).json()) as { user: { email: string } }).user.email).toBe(email);
    expect(await (await browser.get('/')).text()).toContain(`Signed in as ${email}.`);
  });

  it('answers the built-in form page (themed, under the pages\' nonce policy) with the browser\'s CSRF token', async () => {
    const { form, csrf, email } = await start();
    const page = await form.text();
    const policy = form.headers.get('content-security-policy') ?? '';
    expect(policy).toMatch(/default-src 'none'; script-src 'nonce-[\w+/=-]+'; style-src 'nonce-[\w+/=-]+'/);
    expect(injectedMarkup(page)).toEqual([]);
    expect(tags(page, 'script')).toEqual([]);
    expect(tags(page, 'style')).toHaveLength(1);
    expect(page).toContain(`We sent a 6-digit code to ${email}.`);
    const [f] = forms(page);
    expect(f.form.attrs).toMatchObject({ method: 'post', action: `${ORIGIN}/auth/callback/email-code` });
    expect(hidden(f.inner)).toEqual({ csrfToken: csrf });
    expect(tags(f.inner, 'input').find((i) => i.attrs.name === 'code')?.attrs.autocomplete).toBe('one-time-code');
  });

  it('seals only what the flow needs (no code, deps or response), and stores the nonce hashed, for 10 minutes', async () => {
    const { browser, email } = await start();
    const sealed = (await decode({ token: browser.cookies.get(FLOW_COOKIE)!, secret: TEST_SECRET, salt: FLOW_COOKIE })) as unknown as { p: string; v: number; s: string; c: Record<string, unknown> };
    expect(sealed).toMatchObject({ p: 'email-code', v: emailCodeFlow.version, s: 'awaiting' });
    expect(Object.keys(sealed.c).sort()).toEqual(['callbackUrl', 'codeHash', 'email', 'expiresAt', 'flowId', 'nonce', 'providerId', 'startedAt']);
    const { rows } = await pg.db.query<{ token: string; expires: Date }>('SELECT token, expires FROM verification_token WHERE identifier = $1', [`email-code:${email}`]);
    expect(rows).toEqual([{ token: sha256(sealed.c.nonce as string), expires: new Date(sealed.c.expiresAt as number) }]);
    expect((sealed.c.expiresAt as number) - Date.now()).toBeGreaterThan(CODE_TTL_MS - 5_000);
  });

  it('refuses a wrong code (Verification), and the right one after it: one guess per code', async () => {
    const { browser, code, csrf } = await start();
    const replay = copyOf(browser);
    refused(await submit(browser, csrf, otherCode(code)), 'Verification');
    refused(await submit(replay, csrf, code), 'Verification');
    expect(await (await replay.get('/auth/session')).json()).toBeNull();
  });

  it('refuses a flow cookie replayed after a successful sign-in (Verification)', async () => {
    const { browser, code, csrf } = await start();
    const replay = copyOf(browser);
    expect(sessionSet(await submit(browser, csrf, code))).toBe(true);
    refused(await submit(replay, csrf, code), 'Verification');
    expect(await (await replay.get('/auth/session')).json()).toBeNull();
  });

  it('refuses the right code after 10 minutes (Verification)', async () => {
    const { browser, code, csrf } = await start();
    codeExpires();
    refused(await submit(browser, csrf, code), 'Verification');
  });

  it('ends as EmailSignInError when send throws: no flow cookie, nothing to type a code into', async () => {
    const browser = w.browser();
    const email = newAddress();
    w.bounce.add(email);
    const csrf = await csrfToken(browser);
    const res = await browser.post('/auth/signin/email-code', { csrfToken: csrf, email });
    refused(res, 'EmailSignInError');
    expect(browser.cookies.get(FLOW_COOKIE)).toBeUndefined();
    expect(w.logger.errors.at(-1)?.message).toContain('mailbox unavailable');
  });

  it('refuses a tampered flow cookie (InvalidCheck)', async () => {
    const { browser, code, csrf } = await start();
    const value = browser.cookies.get(FLOW_COOKIE)!;
    const at = Math.floor(value.length / 2);
    browser.cookies.set(FLOW_COOKIE, `${value.slice(0, at)}${value[at] === 'A' ? 'B' : 'A'}${value.slice(at + 1)}`, ORIGIN);
    refused(await submit(browser, csrf, code), 'Configuration');
    expect(w.logger.errorTypes().at(-1)).toBe('InvalidCheck');
  });

  it('refuses a flow cookie presented to another provider (InvalidCheck)', async () => {
    const two = world({ providers: (send) => [EmailCode({ send }), EmailCode({ id: 'email-code-2', name: 'Another code', send })] });
    const { browser, code, csrf } = await start(two);
    browser.cookies.set(`${FLOW_COOKIE}-2`, browser.cookies.get(FLOW_COOKIE)!, ORIGIN);
    browser.cookies.delete(FLOW_COOKIE);
    refused(await submit(browser, csrf, code, 'email-code-2'), 'Configuration');
    expect(two.logger.errorTypes()).toEqual(['InvalidCheck']);
  });

  it('refuses a flow cookie of another version of the flow (InvalidCheck); the version it was made for still takes it', async () => {
    const bumped = defineFlow({ ...emailCodeFlow, version: emailCodeFlow.version + 1 });
    const next = world({ providers: (send) => [{ ...EmailCode({ send }), flow: bumped }] });
    const { browser, code, csrf } = await start();
    const upgraded = copyOf(browser, next);
    refused(await submit(upgraded, csrf, code), 'Configuration');
    expect(next.logger.errorTypes()).toEqual(['InvalidCheck']);
    expect(sessionSet(await submit(browser, csrf, code))).toBe(true);
  });

  it('refuses a code post without a CSRF token, and other methods and routes, never with a 500', async () => {
    const { browser, code } = await start();
    const res = await browser.post('/auth/callback/email-code', { code });
    expect(res.status).toBeLessThan(500);
    expect(res.headers.get('location')).toContain('error=MissingCSRF');
    expect(sessionSet(res)).toBe(false);
    for (const path of ['/auth/callback/email-code', '/auth/signin/email-code']) expect((await browser.get(path)).status).toBeLessThan(500);
    expect(await (await browser.get('/auth/session')).json()).toBeNull();
  });

  it('is listed on the sign-in page: a form that posts an address to signin/email-code', async () => {
    const browser = w.browser();
    const page = await (await browser.get('/auth/signin')).text();
    const f = forms(page).find((x) => x.form.attrs.action === `${ORIGIN}/auth/signin/email-code`)!;
    expect(hidden(f.inner).csrfToken).toBe(await csrfToken(browser));
    expect(tags(f.inner, 'input').find((i) => i.attrs.name === 'email')?.attrs).toMatchObject({ type: 'email', autocomplete: 'email' });
    expect(text(f.inner)).toContain('Sign in with E-mail code');
  });
});
