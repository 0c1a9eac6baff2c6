// `npm run load`: load against two demo instances at once (scripts/instances.ts: separate processes sharing
// PostgreSQL, Redis and the demo IdP), with autocannon, and the checks that must hold under it:
//   a. session checks on both answer 200 with the user, nothing else;
//   b. wrong passwords for one account, split between the instances and coming from ever-changing client addresses,
//      reach the password check at most `credentialsAccount` times in all; every other answer is 429 with Retry-After;
//   c. magic links asked for one address on both: at most `emailAddress` sent in all, every other answer 429 with
//      Retry-After;
//   d. a session ended through A while the load runs is refused by B (and A);
//   e. no answer is a 5xx, no request fails, no instance exits.
// Prints a table and writes bench/LOAD.md; `runLoad` is what test/e2e/load-instances.test.ts runs, briefly.
import { createRequire } from 'node:module';
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { root } from './built.js';
import { DEMO_EMAIL, DEMO_PASSWORD } from '../examples/demo/config.js';
import { startInstances, type InstancesOptions, type RunningInstances } from '../scripts/instances.js';
import { SiteBrowser } from '../test/e2e/peers/site-browser.js';

interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  statusCodeStats: Record<string, { count: number }>;
  errors: number;
  timeouts: number;
}
interface AutocannonRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  setupRequest?: (req: AutocannonRequest) => AutocannonRequest;
  onResponse?: (status: number, body: string, context: unknown, headers: Record<string, string | string[]>) => void;
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;

function loadAutocannon(): Autocannon {
  try {
    return createRequire(import.meta.url)('autocannon') as Autocannon;
  } catch {
    throw new Error('autocannon is not installed: run `npm run bench:install` first.');
  }
}

export interface LoadOptions {
  /** Seconds of load (default 10). */
  seconds?: number;
  /** Connections per instance and scenario (default 10). */
  connections?: number;
  /** Passed to startInstances (ports, schema, prefix, a console for the instances' lines). */
  instances?: InstancesOptions;
}

export interface ScenarioFigures {
  /** Per instance, in order: requests per second, p50 and p99 latency (ms), answers by status. */
  perInstance: { requestsPerSec: number; p50: number; p99: number; statuses: Record<string, number>; errors: number }[];
  statuses: Record<string, number>;
  /** 429 answers without a positive Retry-After (seconds), across both instances (counted for the form scenarios). */
  refusedWithoutRetryAfter: number;
}

export interface LoadResult {
  seconds: number;
  connections: number;
  origins: string[];
  sessionChecks: ScenarioFigures;
  wrongPasswords: ScenarioFigures & { reachedCheck: number; limit: number; retryAfter: string | null };
  magicLinks: ScenarioFigures & { accepted: number; mailed: number; limit: number };
  revoked: { before: string | null; afterOnB: string | null; afterOnA: string | null; keptOnA: string | null };
  serverErrors: number;
  failedRequests: number;
  allAlive: boolean;
}

/** A client address of the documentation ranges, new for each request (the instances trust X-Forwarded-For in dev). */
let addressSerial = 0;
const nextClient = () => {
  const n = ++addressSerial;
  return `198.18.${(n >> 8) & 255}.${n & 255}`;
};

async function signedIn(origin: string, client: string): Promise<SiteBrowser> {
  const jar = new SiteBrowser();
  const res = await jar.post(origin, '/auth/callback/credentials', { email: DEMO_EMAIL, password: DEMO_PASSWORD }, { 'x-forwarded-for': client });
  if (res.status !== 302 || (await jar.user(origin)) !== DEMO_EMAIL) throw new Error(`the demo account did not sign in on ${origin} (${res.status})`);
  return jar;
}

function figures(results: AutocannonResult[], refusedWithoutRetryAfter = 0): ScenarioFigures {
  const statuses: Record<string, number> = {};
  const perInstance = results.map((r) => {
    const own: Record<string, number> = {};
    for (const [code, { count }] of Object.entries(r.statusCodeStats ?? {})) {
      own[code] = count;
      statuses[code] = (statuses[code] ?? 0) + count;
    }
    return { requestsPerSec: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, statuses: own, errors: r.errors + r.timeouts };
  });
  return { perInstance, statuses, refusedWithoutRetryAfter };
}

/** Counts, on every answer, a 429 that does not say when to retry (seconds > 0). */
function retryAfterTally() {
  const tally = { missing: 0 };
  const onResponse = (status: number, _body: string, _context: unknown, headers: Record<string, string | string[]>) => {
    if (status !== 429) return;
    const value = Object.entries(headers).find(([name]) => name.toLowerCase() === 'retry-after')?.[1];
    if (!(Number(Array.isArray(value) ? value[0] : value) > 0)) tally.missing++;
  };
  return { tally, onResponse };
}

const count = (statuses: Record<string, number>, match: (code: number) => boolean) =>
  Object.entries(statuses).reduce((n, [code, k]) => (match(Number(code)) ? n + k : n), 0);

/**
 * Starts two instances, loads them for `seconds`, checks, stops them.
 *
 * @example
 * const result = await runLoad({ seconds: 3, connections: 4 }); verdicts(result).every((v) => v.ok)
 */
export async function runLoad(options: LoadOptions = {}): Promise<LoadResult> {
  const autocannon = loadAutocannon();
  const seconds = options.seconds ?? 10;
  const connections = options.connections ?? 10;
  const run: RunningInstances = await startInstances({ count: 2, ...options.instances });
  try {
    const [a, b] = run.origins;
    const tag = `${process.pid}-${Date.now()}`;
    // Sessions: one checked under load, and two of one user (laptop on A, phone on B) for the revocation.
    const loader = await signedIn(a, nextClient());
    const laptop = await signedIn(a, nextClient());
    const phone = await signedIn(b, nextClient());
    const before = await phone.user(b);
    // One CSRF token and its cookie, good on both instances (one secret): what a script replaying a form sends.
    const forms = new SiteBrowser();
    const csrfToken = await forms.csrf(a);
    const formHeaders = { 'content-type': 'application/x-www-form-urlencoded', cookie: forms.header() };
    const everyClient = (req: AutocannonRequest) => ({ ...req, headers: { ...req.headers, 'x-forwarded-for': nextClient() } });
    const target = `load-target-${tag}@example.test`;
    const flooded = `load-flood-${tag}@example.test`;

    const load = (origin: string, request: AutocannonRequest) =>
      autocannon({ url: origin, connections, duration: seconds, requests: [request], timeout: 10 });
    const sessionLoad = Promise.all([a, b].map((o) => load(o, { method: 'GET', path: '/auth/session', headers: { cookie: loader.header() } })));
    // A form posted to both instances, from a new client address each time; every 429 is read for its Retry-After.
    const formLoad = (path: string, fields: Record<string, string>) => {
      const { tally, onResponse } = retryAfterTally();
      const body = new URLSearchParams({ csrfToken, ...fields }).toString();
      const done = Promise.all([a, b].map((o) => load(o, { method: 'POST', path, headers: formHeaders, body, setupRequest: everyClient, onResponse })));
      return done.then((results) => figures(results, tally.missing));
    };
    const passwordLoad = formLoad('/auth/callback/credentials', { email: target, password: 'wrong' });
    const linkLoad = formLoad('/auth/signin/email', { email: flooded });
    // Halfway through, the user ends their other sessions from the laptop on A.
    await new Promise((r) => setTimeout(r, (seconds * 1000) / 2));
    const ended = await laptop.post(a, '/auth/sessions/revoke', { scope: 'others' }, { 'x-forwarded-for': nextClient() });
    if (ended.status !== 200) throw new Error(`ending the other sessions answered ${ended.status}`);
    const afterOnB = await phone.user(b);
    const afterOnA = await phone.user(a);
    const keptOnA = await laptop.user(a);
    const [sessions, wrongPasswords, magicLinks] = await Promise.all([sessionLoad, passwordLoad, linkLoad]);

    // One refused guess, to read its Retry-After.
    const refused = await fetch(new URL('/auth/callback/credentials', b), {
      method: 'POST',
      redirect: 'manual',
      headers: { ...formHeaders, 'x-forwarded-for': nextClient() },
      body: new URLSearchParams({ csrfToken, email: target, password: 'wrong' }).toString(),
    });
    // The mails the catchers of both instances got for the flooded address.
    let mailed = 0;
    for (const origin of run.origins) mailed += ((await (await fetch(new URL('/dev/mailbox', origin))).text()).match(new RegExp(`To ${flooded.replace(/[.]/g, '\\.')}`, 'g')) ?? []).length;

    const sessionChecks = figures(sessions);
    const all = [sessionChecks, wrongPasswords, magicLinks];
    return {
      seconds,
      connections,
      origins: run.origins,
      sessionChecks,
      wrongPasswords: {
        ...wrongPasswords,
        reachedCheck: count(wrongPasswords.statuses, (c) => c !== 429),
        limit: root.defaultThrottleRules.credentialsAccount.points,
        retryAfter: refused.status === 429 ? refused.headers.get('retry-after') : null,
      },
      magicLinks: { ...magicLinks, accepted: count(magicLinks.statuses, (c) => c !== 429), mailed, limit: root.defaultThrottleRules.emailAddress.points },
      revoked: { before, afterOnB, afterOnA, keptOnA },
      serverErrors: all.reduce((n, s) => n + count(s.statuses, (c) => c >= 500), 0),
      failedRequests: all.reduce((n, s) => n + s.perInstance.reduce((m, i) => m + i.errors, 0), 0),
      allAlive: run.alive(),
    };
  } finally {
    await run.stop();
  }
}

export interface Verdict {
  check: string;
  ok: boolean;
  seen: string;
}

/** Each check of the load run, passed or not, with what was seen. */
export function verdicts(r: LoadResult): Verdict[] {
  const only = (statuses: Record<string, number>, allowed: number[]) => Object.keys(statuses).every((c) => allowed.includes(Number(c)));
  const each = (s: ScenarioFigures, code: number) => s.perInstance.every((i) => (i.statuses[code] ?? 0) > 0);
  return [
    { check: 'a. session checks on both instances: 200 only', ok: only(r.sessionChecks.statuses, [200]) && each(r.sessionChecks, 200), seen: JSON.stringify(r.sessionChecks.statuses) },
    {
      check: `b. wrong passwords for one account across both: at most ${r.wrongPasswords.limit} reach the check, the rest 429 on both`,
      ok: r.wrongPasswords.reachedCheck <= r.wrongPasswords.limit && r.wrongPasswords.reachedCheck > 0 && each(r.wrongPasswords, 429) && only(r.wrongPasswords.statuses, [200, 302, 303, 429]),
      seen: `${r.wrongPasswords.reachedCheck} reached the check; ${JSON.stringify(r.wrongPasswords.statuses)}`,
    },
    {
      check: 'b. every refused guess says when to retry (Retry-After)',
      ok: r.wrongPasswords.refusedWithoutRetryAfter === 0 && Number(r.wrongPasswords.retryAfter) > 0,
      seen: `${r.wrongPasswords.refusedWithoutRetryAfter} 429 without it; after the load: Retry-After ${r.wrongPasswords.retryAfter}`,
    },
    {
      check: `c. magic links to one address across both: at most ${r.magicLinks.limit} sent`,
      ok: r.magicLinks.accepted <= r.magicLinks.limit && r.magicLinks.mailed <= r.magicLinks.limit && r.magicLinks.mailed > 0 && each(r.magicLinks, 429),
      seen: `${r.magicLinks.accepted} accepted, ${r.magicLinks.mailed} mailed; ${JSON.stringify(r.magicLinks.statuses)}`,
    },
    { check: 'c. every refused link says when to retry (Retry-After)', ok: r.magicLinks.refusedWithoutRetryAfter === 0, seen: `${r.magicLinks.refusedWithoutRetryAfter} 429 without it` },
    {
      check: 'd. a session ended through A during the load is refused by B and A; the one that ended it goes on',
      ok: r.revoked.before !== null && r.revoked.afterOnB === null && r.revoked.afterOnA === null && r.revoked.keptOnA === r.revoked.before,
      seen: `before ${r.revoked.before}; after on B ${r.revoked.afterOnB}, on A ${r.revoked.afterOnA}; the laptop ${r.revoked.keptOnA}`,
    },
    { check: 'e. no 5xx, no failed request, both instances running', ok: r.serverErrors === 0 && r.failedRequests === 0 && r.allAlive, seen: `${r.serverErrors} 5xx, ${r.failedRequests} failed, alive: ${r.allAlive}` },
  ];
}

/** The report as Markdown. */
export function loadReport(r: LoadResult, when = new Date()): string {
  const row = (name: string, s: ScenarioFigures) =>
    s.perInstance.map((i, n) => `| ${name} | ${n ? 'B' : 'A'} | ${Math.round(i.requestsPerSec).toLocaleString('en')} | ${i.p50} | ${i.p99} | ${Object.entries(i.statuses).map(([c, k]) => `${c}: ${k}`).join(', ')} |`).join('\n');
  return `# Load against two instances

Written by \`npm run load\` on ${when.toISOString()}: two demo instances (separate processes on ${r.origins.join(' and ')}) sharing
PostgreSQL, Redis and the demo IdP; autocannon, ${r.connections} connections per instance and scenario, the three scenarios at
once for ${r.seconds} s. Wrong passwords and magic-link requests come from a new client address each time
(X-Forwarded-For, which the demo trusts outside production), so only the per-account and per-address limits can stop them.

| scenario | instance | requests/s | p50 ms | p99 ms | answers |
|---|---|---|---|---|---|
${row('session check', r.sessionChecks)}
${row('wrong password, one account', r.wrongPasswords)}
${row('magic link, one address', r.magicLinks)}

| check | held | seen |
|---|---|---|
${verdicts(r).map((v) => `| ${v.check} | ${v.ok ? 'yes' : '**no**'} | ${v.seen} |`).join('\n')}
`;
}

async function main(): Promise<void> {
  const seconds = Number(process.env.LOAD_SECONDS ?? 10);
  const result = await runLoad({ seconds, instances: { port: Number(process.env.PORT ?? 3100), schema: 'authchart_load', onLine: () => {} } });
  const report = loadReport(result);
  console.log(report);
  await writeFile(new URL('./LOAD.md', import.meta.url), report);
  console.log('Wrote bench/LOAD.md');
  if (!verdicts(result).every((v) => v.ok)) process.exitCode = 1;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
