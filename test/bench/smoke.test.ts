// The benchmark harness with tiny counts, so `npm run bench` never rots: every benchmark runs and yields numbers.
// Without bench/node_modules, Auth.js (and autocannon) must be reported as not installed while authchart still runs.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { activityLines, benchActivity } from '../../bench/activity.js';
import { FEATURES, benchBundle } from '../../bench/bundle.js';
import { NOT_INSTALLED, OURS_SESSION_COOKIE, assertSession, authchartApp, signInWithCredentials } from '../../bench/contenders.js';
import { benchDatabase } from '../../bench/database.js';
import { benchHttpLoad } from '../../bench/http-load.js';
import { interleave, spread, timeLoop, type Spread } from '../../bench/measure.js';
import { benchOidcFlow } from '../../bench/oidc-flow.js';
import { benchOtelOff, type OtelOffResult } from '../../bench/otel-off.js';
import { benchPassword, PASSWORD_SIDES } from '../../bench/password.js';
import { otelVerdict, renderResults, targets } from '../../bench/report.js';
import { benchSessionCheck } from '../../bench/session-check.js';
import { benchThrottle } from '../../bench/throttle.js';
import { SMOKE, runBenchmarks, type BenchResults } from '../../bench/suite.js';

const modules = fileURLToPath(new URL('../../bench/node_modules/', import.meta.url));
const authjsInstalled = existsSync(`${modules}@auth/core/package.json`);
const autocannonInstalled = existsSync(`${modules}autocannon/package.json`);
const betterAuthInstalled = existsSync(`${modules}better-auth/package.json`);
const SLOW = 90_000;

function expectFigure(s: Spread): void {
  expect(s.runs).toBeGreaterThan(0);
  for (const v of [s.min, s.median, s.max]) {
    expect(Number.isFinite(v)).toBe(true);
    expect(v).toBeGreaterThan(0);
  }
  expect(s.min).toBeLessThanOrEqual(s.median);
  expect(s.median).toBeLessThanOrEqual(s.max);
}

/** What a side must look like: figures when it could run, the "not installed" note when it could not. */
function expectSide<T extends object>(side: T | { skipped: string }, installed: boolean, check: (figures: T) => void): void {
  if (installed) {
    expect(side).not.toHaveProperty('skipped');
    check(side as T);
  } else expect(side).toEqual({ skipped: expect.stringContaining(NOT_INSTALLED) });
}

// Filled by the benchmarks below (in file order), rendered together by the last test.
const collected: BenchResults = {
  machine: { date: '2026-01-01T00:00:00.000Z', node: process.version, os: 'test', cpu: 'test', cores: 1, memoryGiB: 1, load: [0, 0], seconds: 1, settings: 'smoke' },
  failures: {},
};

describe('measure', () => {
  it('spread gives min, median and max, the median of an even count being the middle mean', () => {
    expect(spread([3, 1, 2])).toEqual({ min: 1, median: 2, max: 3, runs: 3 });
    expect(spread([4, 1, 3, 2])).toEqual({ min: 1, median: 2.5, max: 4, runs: 4 });
    expect(spread([NaN, 5])).toEqual({ min: 5, median: 5, max: 5, runs: 1 });
  });

  it('interleave runs every contender each round and rotates who goes first', async () => {
    const order: string[] = [];
    const out = await interleave(3, { a: async () => order.push('a'), b: async () => order.push('b') });
    expect(order).toEqual(['a', 'b', 'b', 'a', 'a', 'b']);
    expect(out.a).toHaveLength(3);
  });

  it('timeLoop runs exactly `ops` operations, with `concurrency` of them in flight', async () => {
    let running = 0;
    let peak = 0;
    const sample = await timeLoop(
      async () => {
        peak = Math.max(peak, ++running);
        // At least 1 ms of real time: a 1 ms timer may fire a little early against performance.now (libuv's loop
        // clock has millisecond steps), so wait again until the millisecond has really passed.
        const end = performance.now() + 1;
        while (performance.now() < end) await new Promise((r) => setTimeout(r, 1));
        running--;
      },
      { ops: 12, concurrency: 4 },
    );
    expect(sample.ops).toBe(12);
    expect(peak).toBe(4);
    expect(sample.opsPerSec).toBeGreaterThan(0);
    // Three waves of four 1 ms waits: at least 3 ms over 12 operations.
    expect(sample.wallUsPerOp).toBeGreaterThanOrEqual(240);
  });
});

describe('benchmarks with tiny counts', () => {
  it('1. session check: authchart, both floors, and Auth.js when installed', async () => {
    const result = (collected.session = await benchSessionCheck(SMOKE.session));
    for (const side of ['authchart', 'authchart, token cache off', 'floor: decodeSync (node:crypto)', 'floor: jose jwtDecrypt'] as const) {
      expectSide(result.sides[side], true, (f) => [f.sequential.opsPerSec, f.sequential.cpuUsPerOp, f.inFlight.opsPerSec].forEach(expectFigure));
    }
    expectSide(result.sides['Auth.js'], authjsInstalled, (f) => [f.sequential.opsPerSec, f.inFlight.cpuUsPerOp].forEach(expectFigure));
    for (const side of ['better-auth, cookie cache (compact)', 'better-auth, cookie cache (jwe)'] as const) {
      expectSide(result.sides[side], betterAuthInstalled, (f) => [f.sequential.opsPerSec, f.inFlight.cpuUsPerOp].forEach(expectFigure));
    }
    expect(result.betterAuthVersion !== undefined).toBe(betterAuthInstalled);
    expect(result.tokenChars.authchart).toBeGreaterThan(100);
  }, SLOW);

  it('1. refuses to time a session check that does not answer the session', async () => {
    const handle = await authchartApp();
    await expect(assertSession(handle, `${OURS_SESSION_COOKIE}=forged`)).rejects.toThrow(/session check answered 200 null/);
    await expect(assertSession(handle, await signInWithCredentials(handle, OURS_SESSION_COOKIE))).resolves.toBeUndefined();
  });

  it('2. HTTP load with autocannon, or "not installed" without it', async () => {
    const result = (collected.http = await benchHttpLoad(SMOKE.http));
    expectSide(result.authchart, autocannonInstalled, (f) => [f.requestsPerSec, f.p99Ms, f.serverCpuUsPerReq].forEach(expectFigure));
    expectSide(result['floor: static JSON'], autocannonInstalled, (f) => expectFigure(f.requestsPerSec));
    expectSide(result['authchart, token cache off'], autocannonInstalled, (f) => expectFigure(f.serverCpuUsPerReq));
    expectSide(result['floor: cookie + decodeSync'], autocannonInstalled, (f) => expectFigure(f.serverCpuUsPerReq));
    expectSide(result['Auth.js'], authjsInstalled && autocannonInstalled, (f) => expectFigure(f.requestsPerSec));
    expectSide(result['better-auth, cookie cache (compact)'], betterAuthInstalled && autocannonInstalled, (f) => [f.requestsPerSec, f.serverCpuUsPerReq].forEach(expectFigure));
  }, SLOW);

  it('3-4. OIDC sign-ins against the real OP, with the bytes of their cookies', async () => {
    const result = (collected.oidc = await benchOidcFlow(SMOKE.oidc));
    expectSide(result.authchart, true, (f) => {
      [f.appMs, f.cpuMs, f.handlerCpuMs, f.totalMs].forEach(expectFigure);
      // The handler's CPU is part of the requests' CPU, never more.
      expect(f.handlerCpuMs.min).toBeLessThanOrEqual(f.cpuMs.max);
      expect(f.cookies.flowCookieNames).toEqual(['authchart.flow.oidc']);
      expect(f.cookies.flowSetCookieBytes).toBeGreaterThan(100);
      expect(f.cookies.sessionSetCookieBytes).toBeGreaterThan(100);
    });
    expectSide(result['Auth.js'], authjsInstalled, (f) => {
      expectFigure(f.appMs);
      expect(f.cookies.flowCookieNames.sort()).toEqual(['authjs.nonce', 'authjs.pkce.code_verifier', 'authjs.state']);
    });
  }, SLOW);

  it('5. database session check: one SQL statement per check on PGlite and PostgreSQL', async () => {
    const databaseUrl = process.env.DATABASE_URL;
    const result = (collected.database = await benchDatabase({ ...SMOKE.database, databaseUrl }));
    const checks = (f: { queriesPerCheck: number; sequential: { checksPerSec: Spread } }, statements: number) => {
      expect(f.queriesPerCheck).toBe(statements);
      expectFigure(f.sequential.checksPerSec);
    };
    expectSide(result['authchart on PGlite'], true, (f) => checks(f, 1));
    if (databaseUrl) {
      expectSide(result['authchart on PostgreSQL'], true, (f) => checks(f, 1));
      // @auth/pg-adapter reads the session, then the user: two statements.
      expectSide(result['Auth.js + @auth/pg-adapter on PostgreSQL'], authjsInstalled, (f) => checks(f, 2));
      // better-auth without its cookie cache reads the session, then the user (its Kysely adapter, counted through the
      // pool's checked-out clients).
      expectSide(result['better-auth on PostgreSQL (no cookie cache)'], betterAuthInstalled, (f) => checks(f, 2));
    } else expect(result['authchart on PostgreSQL']).toEqual({ skipped: 'no DATABASE_URL' });
  }, SLOW);

  it('6. bundle sizes, and the suite runs a section end to end', async () => {
    const result = (collected.bundle = await benchBundle());
    expectSide(result.authchart, true, (f) => {
      expect(f.gzipBytes).toBeGreaterThan(1000);
      expect(f.gzipBytes).toBeLessThan(f.minifiedBytes);
      expect(f.largest[0].bytes).toBeGreaterThan(0);
      // The other 31 catalogue presets are tree-shaken away: only what the app imported ships.
      expect(f.presets).toEqual(['github']);
      // Each optional feature measured; using one costs bytes. An app without organizations or session control ships
      // (almost) none of their code at start: the organization gate loads with requireOrganization's first call (it
      // was 4.7 KB in this bundle), session control with its first call (2.4 KB).
      expect(f.features?.map((feature) => feature.name)).toEqual(FEATURES.map((feature) => feature.name));
      for (const feature of f.features ?? []) expect(feature.whenUsedGzipBytes, feature.name).toBeGreaterThan(0);
      for (const name of ['organizations', 'session list and revocation']) expect(f.features?.find((feature) => feature.name === name)?.startBytes, name).toBeLessThan(1024);
    });
    expectSide(result['Auth.js'], authjsInstalled, (f) => expect(f.gzipBytes).toBeLessThan(f.minifiedBytes));
    const suite = await runBenchmarks(SMOKE, { only: ['bundle'] });
    expect(suite.failures).toEqual({});
    expect(suite.bundle).toEqual(result);
    expect(suite.session).toBeUndefined();
    expect(suite.machine.node).toBe(process.version);
    // As `npm run bench` runs it: the section in a process of its own, its figures brought back whole.
    const isolated = await runBenchmarks(SMOKE, { only: ['bundle'], isolate: true });
    expect(isolated.failures).toEqual({});
    expect(isolated.bundle).toEqual(result);
    expect(isolated.machine.isolated).toBe(true);
    expect(suite.machine.isolated).toBe(false);
  }, SLOW);

  it('7. throttled sign-ins on memory, Redis and PostgreSQL, allowed and refused, against no throttle', async () => {
    const result = await benchThrottle({ ...SMOKE.throttle, databaseUrl: process.env.DATABASE_URL });
    collected.throttle = result;
    expectSide(result.sides.off, true, (f) => expectFigure(f.allowed.opsPerSec));
    expectSide(result.sides.memory, true, (f) => [f.allowed.opsPerSec, f.refused!.opsPerSec, f.refused!.cpuUsPerOp].forEach(expectFigure));
  }, SLOW);

  it('8. OpenTelemetry installed without a provider against hidden, in fresh processes, as a ratio', async () => {
    const result = (collected.otel = await benchOtelOff(SMOKE.otel));
    [result.absentCpuMs, result.controlCpuMs, result.presentCpuMs, result.ratio, result.control, result.hookNs, result.hookAbsentNs, result.hookShare].forEach(expectFigure);
    expect(result.ratio.runs).toBe(SMOKE.otel.rounds);
    expect(result.control.runs).toBe(SMOKE.otel.rounds);
    // A share of one sign-in: a hook that cost a whole sign-in would be no hook.
    expect(result.hookShare.max).toBeLessThan(1);
  }, SLOW);

  it('8. judges "nothing measurable" by the A/A control of the same run and the hook\'s own share', () => {
    const s = (min: number, median: number, max: number) => ({ min, median, max, runs: 3 });
    const base: OtelOffResult = {
      absentCpuMs: s(2, 2, 2),
      controlCpuMs: s(2, 2, 2),
      presentCpuMs: s(2, 2, 2),
      control: s(0.95, 1.0, 1.05),
      ratio: s(0.97, 1.03, 1.08),
      hookNs: s(20, 25, 30),
      hookAbsentNs: s(5, 6, 7),
      hookShare: s(1e-5, 1.25e-5, 1.5e-5),
    };
    expect(otelVerdict(base)).toEqual({ noise: expect.closeTo(0.05, 10), ratioInBand: true, hookBelowNoise: true, measurable: false });
    // A median ratio past what two identical processes spanned is measurable, however small the hook.
    expect(otelVerdict({ ...base, ratio: s(1.04, 1.06, 1.1) })).toMatchObject({ ratioInBand: false, measurable: true });
    expect(otelVerdict({ ...base, ratio: s(0.9, 0.94, 1.0) })).toMatchObject({ ratioInBand: false, measurable: true });
    // A hook that costs more of a sign-in than the noise band is measurable, whatever the processes showed.
    expect(otelVerdict({ ...base, hookShare: s(0.05, 0.06, 0.07) })).toMatchObject({ ratioInBand: true, hookBelowNoise: false, measurable: true });
  });

  it('9. a Password sign-in (right, wrong, unknown address) beside argon2id verify alone, every side checked', async () => {
    const result = (collected.password = await benchPassword(SMOKE.password));
    expect(result.parameters).toBe('argon2id m=19456 KiB, t=2, p=1');
    expect(Object.keys(result.sides)).toEqual([...PASSWORD_SIDES]);
    const ours = PASSWORD_SIDES.filter((side) => !side.startsWith('better-auth'));
    for (const side of ours) expectSide(result.sides[side], true, (f) => [f.msPerOp, f.cpuMsPerOp].forEach(expectFigure));
    expectSide(result.sides['better-auth sign-in, right password (same argon2id)'], betterAuthInstalled, (f) => [f.msPerOp, f.cpuMsPerOp].forEach(expectFigure));
    // A sign-in does the verify and more: it cannot be cheaper than the hash alone (the smallest sign-in against the
    // largest verify would only flake on a starved machine, so medians against half the verify's minimum).
    const floor = result.sides['argon2id verify alone'] as { msPerOp: Spread };
    for (const side of PASSWORD_SIDES.slice(1)) {
      const f = result.sides[side];
      if ('msPerOp' in f) expect(f.msPerOp.median).toBeGreaterThan(floor.msPerOp.min * 0.5);
    }
  }, SLOW);

  it('10. the activity log on a sign-in: memory, PGlite and the PostgreSQL server each measured, the log on keeping records', async () => {
    // benchActivity throws when a side with the log on kept no record, or one with it off kept any.
    const result = await benchActivity({ ...SMOKE.activity, databaseUrl: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test' });
    for (const store of ['memory', 'pglite', 'postgres'] as const) {
      const figures = result.stores[store];
      expect('skipped' in figures, `${store}: ${JSON.stringify(figures)}`).toBe(false);
      if (!('skipped' in figures)) for (const s of [figures.offCpuMs, figures.onCpuMs, figures.ratio]) expectFigure(s);
    }
    expect(activityLines(result)).toHaveLength(3);
  }, SLOW);

  it('renders every section and judges every target from the figures above', () => {
    expect(Object.keys(collected)).toEqual(expect.arrayContaining(['session', 'http', 'oidc', 'database', 'bundle', 'throttle', 'otel', 'password']));
    const markdown = renderResults(collected);
    for (const heading of ['## Targets', '## 1.', '## 2.', '## 3.', '## 4.', '## 5.', '## 6.', '## 7.', '## 8.', '## 9.']) expect(markdown).toContain(heading);
    expect(markdown).not.toMatch(/NaN|undefined|failed:/);
    // Tiny counts say nothing about speed, only that every target can be judged once both sides ran.
    const judged = targets(collected);
    const floor = judged.filter((t) => t.name.includes('floor'));
    // The node:crypto floor (issue 8), the decodeSync floor with the cache off, and over HTTP (autocannon) the two
    // node:http floors (issue 32).
    expect(floor.map((t) => typeof t.met)).toEqual(Array(autocannonInstalled ? 4 : 2).fill('boolean'));
    // OpenTelemetry's row compares authchart with itself: judged whether or not Auth.js is installed.
    const otel = judged.filter((t) => t.name.startsWith('OpenTelemetry'));
    expect(otel.map((t) => typeof t.met)).toEqual(['boolean']);
    expect(otel[0].met).toBe(!otelVerdict(collected.otel!).measurable);
    const peer = judged.filter((t) => t.name.includes('better-auth'));
    expect(peer.length).toBeGreaterThan(0);
    for (const t of peer) expect(t.met === undefined).toBe(!betterAuthInstalled || (t.name.startsWith('HTTP') && !autocannonInstalled));
    for (const t of judged.filter((x) => !floor.includes(x) && !otel.includes(x) && !peer.includes(x))) expect(t.met === undefined).toBe(!authjsInstalled);
  });
});
