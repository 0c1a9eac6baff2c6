// Flow records: the evidence a failure carries, the id that ties a paused sign-in to its callback, how records
// reach logger.debug (ours and a custom one), and the error page's trace, shown only in development.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { InvalidCheck } from '../../../src/core/errors.js';
import type { LoggerInstance } from '../../../src/core/options.js';
import { FlowLog } from '../../../src/flows/runtime/log.js';
import * as authchart from '../../../src/index.js';
import * as devtools from '../../../src/devtools/index.js';
import { toMermaidPath } from '../../../src/devtools/mermaid.js';
import { errorEvidence, flowRecord, formatFlowRecord, isFlowId, plainValue, type FlowRecord } from '../../../src/flows/runtime/record.js';
import { Credentials } from '../../../src/providers/credentials.js';
import { offlineOAuth } from '../../support/offline-oauth.js';
import { testAuth, type TestAuth } from '../../support/auth-app.js';

const credentials = Credentials({
  credentials: { email: {}, password: {} },
  authorize: async (c) => {
    if (c.password === 'pw') return { id: 'u1', email: String(c.email) };
    if (c.password === 'crash') throw new Error('user store is down');
    return null;
  },
});

const acme = offlineOAuth;

/** The flow records a recording logger received, in order. */
function records(t: TestAuth): FlowRecord[] {
  return t.logger.debugs.filter((d) => d.message.startsWith('flow ')).map((d) => d.metadata as FlowRecord);
}

async function submit(t: TestAuth, password: string, client = t.client) {
  const csrfToken = await t.csrfToken(client);
  return client.post('/auth/callback/credentials', { csrfToken, email: 'a@b.test', password });
}

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

describe('flow records', () => {
  it('reduce an error to plain evidence: type, message, state, event, expected vs. actual, cause', () => {
    const err = new InvalidCheck('state mismatch', { state: 'failed.invalidCheck', event: 'xstate.error.actor.validate', expected: 'abc', actual: { state: 'xyz' }, err: new TypeError('boom') });
    expect(errorEvidence(err)).toEqual({
      type: 'InvalidCheck',
      message: 'state mismatch',
      state: 'failed.invalidCheck',
      event: 'xstate.error.actor.validate',
      expected: 'abc',
      // An OAuth `state` field is a secret: the evidence says one was there, never what it was.
      actual: { state: '[redacted]' },
      cause: 'TypeError: boom',
    });
    expect(errorEvidence('plain string')).toEqual({ type: 'Error', message: 'plain string' });
  });

  it('keep evidence JSON-safe and small whatever it holds', () => {
    const circular: Record<string, unknown> = { a: 1 };
    circular.self = circular;
    expect(plainValue(circular)).toBe('[object Object]');
    expect(plainValue(10n)).toBe('10');
    expect(plainValue(() => 1)).toBe('[function]');
    expect(plainValue(new RangeError('r'))).toBe('RangeError: r');
    const big = plainValue({ blob: 'x'.repeat(5000) }) as string;
    expect(typeof big).toBe('string');
    expect(big.length).toBeLessThan(2100);
    expect(big).toMatch(/… \(\d+ chars\)$/);
    expect(plainValue('y'.repeat(3000))).toHaveLength(1000 + '… (3000 chars)'.length);
    const record = flowRecord({ id: 'a'.repeat(16), provider: 'p', machine: 'm', startedAt: 0, durationMs: 1.26, status: 'failed', trace: [], error: new InvalidCheck('x', { actual: circular }) });
    expect(JSON.parse(JSON.stringify(record))).toEqual(record);
    expect(record.durationMs).toBe(1.3);
  });

  it('carry no error unless the run failed', () => {
    const record = flowRecord({ id: 'b'.repeat(16), provider: 'p', machine: 'm', startedAt: 0, durationMs: 0, status: 'paused', trace: [], error: new Error('ignored') });
    expect(record.error).toBeUndefined();
  });

  it('record a failed credentials flow with its path and evidence', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2030-01-02T03:04:05.000Z'));
    try {
      const t = testAuth({ providers: [credentials] });
      await submit(t, 'wrong');
      const [record] = records(t);
      expect(isFlowId(record.id)).toBe(true);
      expect(record).toMatchObject({ provider: 'credentials', machine: 'credentials', status: 'failed', startedAt: Date.parse('2030-01-02T03:04:05.000Z') });
      expect(record.durationMs).toBeGreaterThanOrEqual(0);
      expect(record.trace.map((e) => `${e.from}>${e.to}`)).toEqual(['idle>authorizing', 'authorizing>failed.credentialsSignin']);
      expect(record.trace.every((e) => e.at === Date.parse('2030-01-02T03:04:05.000Z'))).toBe(true);
      expect(record.error).toEqual({
        type: 'CredentialsSignin',
        message: 'authorize returned no user',
        state: 'failed.credentialsSignin',
        event: 'xstate.done.actor.authorize',
        expected: 'a user',
        actual: null,
      });
      expect(t.logger.debugs.find((d) => d.message === 'flow credentials failed')?.metadata).toBe(record);
    } finally {
      vi.useRealTimers();
    }
  });

  it('give a paused sign-in and its callback one id, each request its own part of the path', async () => {
    const t = testAuth({ providers: [acme] });
    const start = await t.client.post('/auth/signin/acme', { csrfToken: await t.csrfToken() });
    expect(start.status).toBe(302);
    const back = await t.client.get('/auth/callback/acme?code=c&state=forged');
    expect(back.location?.pathname).toBe('/auth/error');
    const [paused, failed] = records(t);
    expect(paused).toMatchObject({ status: 'paused', provider: 'acme', machine: 'oauth' });
    expect(paused.trace.at(-1)?.to).toBe('awaitingCallback');
    expect(failed.id).toBe(paused.id);
    expect(failed.trace[0].from).toBe('awaitingCallback');
    expect(failed.error).toMatchObject({ type: 'InvalidCheck', state: 'failed.invalidCheck', actual: 'forged' });
    // A second sign-in is another flow.
    await t.client.post('/auth/signin/acme', { csrfToken: await t.csrfToken() });
    expect(records(t)[2].id).not.toBe(paused.id);
  });

  it('record a flow rejected before its machine ran (no flow cookie)', async () => {
    const t = testAuth({ providers: [acme] });
    await t.client.get('/auth/callback/acme?code=c&state=s');
    const [record] = records(t);
    expect(record).toMatchObject({ status: 'failed', provider: 'acme', machine: 'oauth', trace: [] });
    expect(record.error).toMatchObject({ type: 'InvalidCheck', expected: 'flow cookie', actual: null });
    expect(record.error?.state).toBeUndefined();
  });
});

describe('the public surface', () => {
  it('exports toMermaidPath next to toMermaid (authchart/devtools), and the record types for logger consumers', () => {
    expect(devtools.toMermaidPath).toBe(toMermaidPath);
    expect(typeof devtools.toMermaid).toBe('function');
    // The types are checked by tsc: a consumer can name what logger.debug hands it.
    const entry = { from: 'idle', event: 'GO', to: 'done', at: 0 } satisfies authchart.TraceEntry;
    void ({ id: 'd'.repeat(16), provider: 'p', machine: 'm', startedAt: 0, durationMs: 0, status: 'signedIn', trace: [entry] } satisfies authchart.FlowRecord);
  });
});

describe('logging flow records', () => {
  it('with debug: true, logs every record through the default logger', async () => {
    const lines: unknown[][] = [];
    vi.spyOn(console, 'debug').mockImplementation((...args) => void lines.push(args));
    const t = testAuth({ providers: [credentials], debug: true, logger: { error: () => {}, warn: () => {} } });
    await submit(t, 'wrong');
    const line = lines.find((args) => String(args[0]).includes('flow credentials failed'));
    expect(line).toBeDefined();
    const logged = JSON.parse(String(line![1])) as FlowRecord;
    expect(logged.error?.type).toBe('CredentialsSignin');
    expect(logged.trace.at(-1)?.to).toBe('failed.credentialsSignin');
  });

  it('without debug and without a custom logger.debug, logs nothing', async () => {
    const spy = vi.spyOn(console, 'debug').mockImplementation(() => {});
    const t = testAuth({ providers: [credentials], logger: { error: () => {}, warn: () => {} } });
    await submit(t, 'wrong');
    expect(spy).not.toHaveBeenCalled();
  });

  it('hands a custom logger.debug every record, which it can ship anywhere as JSON', async () => {
    const shipped: string[] = [];
    const logger: Partial<LoggerInstance> = {
      error: () => {},
      warn: () => {},
      debug: (message, metadata) => {
        if (message.startsWith('flow ')) shipped.push(JSON.stringify({ message, ...(metadata as FlowRecord) }));
      },
    };
    const t = testAuth({ providers: [credentials], logger: logger as LoggerInstance });
    await submit(t, 'pw');
    await submit(t, 'crash');
    const [ok, crashed] = shipped.map((line) => JSON.parse(line) as FlowRecord & { message: string });
    expect(ok).toMatchObject({ message: 'flow credentials signedIn', status: 'signedIn', provider: 'credentials' });
    expect(ok.trace.at(-1)?.to).toBe('resolved');
    expect(ok.error).toBeUndefined();
    expect(crashed).toMatchObject({ message: 'flow credentials failed', status: 'failed' });
    expect(crashed.error).toMatchObject({ type: 'CallbackRouteError', message: 'user store is down', state: 'failed.callbackRoute', cause: 'Error: user store is down' });
  });
});

describe('the development flow log', () => {
  const run = (id: string, status: FlowRecord['status'], at: number): FlowRecord => ({
    id, provider: 'p', machine: 'm', startedAt: at, durationMs: 1.5, status, trace: [{ from: 'a', event: 'E', to: 'b', at }],
  });
  const machine = { id: 'm' } as never;

  it('keeps the last flows only, newest first, and merges the runs of one flow', () => {
    const log = new FlowLog(3);
    const ids = ['0000000000000001', '0000000000000002', '0000000000000003', '0000000000000004'];
    log.add(run(ids[0], 'paused', 1), machine);
    log.add(run(ids[1], 'failed', 2), machine);
    log.add(run(ids[2], 'signedIn', 3), machine);
    log.add(run(ids[0], 'failed', 4), machine);
    expect(log.list().map((f) => f.record.id)).toEqual([ids[0], ids[2], ids[1]]);
    const merged = log.get(ids[0])!;
    expect(merged.runs).toHaveLength(2);
    expect(merged.record).toMatchObject({ status: 'failed', startedAt: 1, durationMs: 3 });
    expect(merged.record.trace).toHaveLength(2);
    log.add(run(ids[3], 'failed', 5), machine);
    expect(log.size).toBe(3);
    expect(log.get(ids[2])).toBeDefined();
    expect(log.get(ids[1])).toBeUndefined();
  });

  it('formats a record as text for terminals and the error page', () => {
    const record = flowRecord({
      id: 'c'.repeat(16), provider: 'acme', machine: 'oauth', startedAt: 1000, durationMs: 2, status: 'failed',
      trace: [{ from: 'awaitingCallback', event: 'CALLBACK', to: 'exchanging', at: 1001 }, { from: 'exchanging', event: 'xstate.error.actor.exchange', to: 'failed.invalidCheck', guard: 'errorIs(InvalidCheck)', at: 1003 }],
      error: new InvalidCheck('bad state', { state: 'failed.invalidCheck', expected: 'abc', actual: 'xyz' }),
    });
    const text = formatFlowRecord(record);
    expect(text).toContain('InvalidCheck: bad state');
    expect(text).toContain('expected: abc');
    expect(text).toContain('actual:   xyz');
    expect(text).toContain('+1 ms  awaitingCallback --CALLBACK--> exchanging');
    expect(text).toContain('+3 ms  exchanging --xstate.error.actor.exchange [errorIs(InvalidCheck)]--> failed.invalidCheck');
  });
});

describe('the error page trace', () => {
  const TRACE_COOKIE = 'authchart.flow-trace';

  async function failToErrorPage(t: TestAuth, client = t.client) {
    const res = await submit(t, 'crash', client);
    expect(res.location?.pathname).toBe('/auth/error');
    expect(res.location?.searchParams.get('error')).toBe('Configuration');
    return res;
  }

  it('shows the failing flow to the browser that ran it, with debug on outside production', async () => {
    const t = testAuth({ providers: [credentials], debug: true });
    const res = await failToErrorPage(t);
    expect(res.setCookie.some((c) => c.startsWith(`${TRACE_COOKIE}=`) && /HttpOnly/i.test(c))).toBe(true);
    const page = await (await t.client.get(res.location!)).text();
    expect(page).toContain('Debug trace');
    expect(page).toContain('CallbackRouteError: user store is down');
    expect(page).toContain('state:    failed.callbackRoute');
    expect(page).toContain('idle --SUBMIT--&gt; authorizing');
    expect(page).toContain('authorizing --xstate.error.actor.authorize--&gt; failed.callbackRoute');
    expect(page).toMatch(/inspector: http:\/\/localhost:3000\/auth\/_inspect\/[0-9a-f]{16}/);
    // Another browser following the same URL sees the plain error page.
    const other = await (await t.newClient().get(res.location!)).text();
    expect(other).not.toContain('Debug trace');
    // So does this browser on an error the flow did not cause.
    const unrelated = await (await t.client.get('/auth/error?error=AccessDenied')).text();
    expect(unrelated).not.toContain('Debug trace');
  });

  it('never shows it without debug', async () => {
    const t = testAuth({ providers: [credentials] });
    const res = await failToErrorPage(t);
    expect(res.setCookie.some((c) => c.startsWith(`${TRACE_COOKIE}=`))).toBe(false);
    const page = await (await t.client.get(res.location!)).text();
    expect(page).toContain('Server error');
    expect(page).not.toContain('Debug trace');
  });

  it('never shows it in production, even with debug on', async () => {
    vi.stubEnv('NODE_ENV', 'production');
    const t = testAuth({ providers: [credentials], debug: true });
    const res = await failToErrorPage(t);
    expect(res.setCookie.some((c) => c.startsWith(`${TRACE_COOKIE}=`))).toBe(false);
    // Even a browser that presents the id of a real flow gets nothing: production keeps no flows.
    const id = records(t)[0].id;
    const page = await (await t.client.get(res.location!, { headers: { cookie: `${TRACE_COOKIE}=${id}` } })).text();
    expect(page).toContain('Server error');
    expect(page).not.toContain('Debug trace');
    expect(page).not.toContain('user store is down');
  });

  it('ignores a forged or stale trace cookie', async () => {
    const t = testAuth({ providers: [credentials], debug: true });
    for (const value of ['0123456789abcdef', '<script>', '']) {
      const page = await (await t.client.get('/auth/error?error=Configuration', { headers: { cookie: `${TRACE_COOKIE}=${value}` } })).text();
      expect(page).not.toContain('Debug trace');
    }
  });

  it('is not a session: a failed flow sets no session cookie in debug mode either', async () => {
    const t = testAuth({ providers: [credentials], debug: true });
    const res = await failToErrorPage(t);
    expect(res.setCookie.some((c) => c.includes('session-token=') && !/Max-Age=0/i.test(c))).toBe(false);
  });
});
