// Turns the figures of a run into bench/RESULTS.md: the conditions, one table per benchmark with min / median / max
// and the ratio ours / theirs, and the issue's targets with whether this run met them.
import type { BundleResult } from './bundle.js';
import type { DatabaseResult } from './database.js';
import type { HttpLoadResult } from './http-load.js';
import type { Spread } from './measure.js';
import type { OidcFlowResult } from './oidc-flow.js';
import type { OtelOffResult } from './otel-off.js';
import { activityLines, type ActivityBenchResult } from './activity.js';
import type { PasswordBenchResult } from './password.js';
import { IN_FLIGHT, type SessionCheckResult } from './session-check.js';
import type { BenchResults } from './suite.js';
import type { ThrottleBenchResult } from './throttle.js';

type Skippable<T> = T | { skipped: string };
const ran = <T extends object>(x: Skippable<T> | undefined): x is T => x !== undefined && !('skipped' in x);
const why = (x: { skipped: string } | object | undefined, failure?: string): string =>
  failure ? `failed: ${failure}` : x && 'skipped' in x ? (x as { skipped: string }).skipped : 'not run';

/** 12,345 / 123 / 12.3 / 1.23: three significant digits at most below 1,000. */
export function num(n: number): string {
  if (!Number.isFinite(n)) return '–';
  const abs = Math.abs(n);
  if (abs >= 1000) return Math.round(n).toLocaleString('en-US');
  if (abs >= 100) return n.toFixed(0);
  if (abs >= 10) return n.toFixed(1);
  return n.toFixed(2);
}

const spread = (s: Spread): string => `${num(s.min)} / **${num(s.median)}** / ${num(s.max)}`;
const ratio = (a: number, b: number): string => (Number.isFinite(a / b) ? `${(a / b).toFixed(2)}×` : '–');
const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`;

function sessionSection(r: SessionCheckResult | undefined, failure?: string): string[] {
  const out = ['## 1. Session check in process (`GET /auth/session`, valid JWT cookie, `app.fetch`)', ''];
  if (!r) return [...out, why(undefined, failure), ''];
  out.push(`Token: authchart ${r.tokenChars.authchart} characters, Auth.js ${r.tokenChars.authjs ?? '–'}, better-auth ${r.tokenChars.betterAuth ?? '–'} (its session token and compact cookie cache together). Each figure: min / **median** / max over rounds.`, '');
  if (r.betterAuthVersion) out.push(`better-auth ${r.betterAuthVersion}, configured as its docs recommend for checks that read no database: e-mail and password accounts, \`session.cookieCache\` on (five minutes) with its default \`compact\` strategy and with \`jwe\` (the encrypted one, as authchart's and Auth.js's tokens are). Its cookie must be read and a tampered session token refused before it is timed.`, '');
  out.push(`| side | ops/s sequential | CPU µs/op sequential | ops/s ${IN_FLIGHT} in flight | CPU µs/op ${IN_FLIGHT} in flight |`, '|---|---|---|---|---|');
  for (const [side, f] of Object.entries(r.sides)) {
    if (!ran(f)) out.push(`| ${side} | ${f.skipped} | | | | |`);
    else out.push(`| ${side} | ${spread(f.sequential.opsPerSec)} | ${spread(f.sequential.cpuUsPerOp)} | ${spread(f.inFlight.opsPerSec)} | ${spread(f.inFlight.cpuUsPerOp)} |`);
  }
  const ours = r.sides.authchart;
  const theirs = r.sides['Auth.js'];
  const floor = r.sides['floor: decodeSync (node:crypto)'];
  out.push('');
  if (ran(ours) && ran(theirs)) {
    out.push(`- Throughput authchart / Auth.js (medians): sequential ${ratio(ours.sequential.opsPerSec.median, theirs.sequential.opsPerSec.median)}, ${IN_FLIGHT} in flight ${ratio(ours.inFlight.opsPerSec.median, theirs.inFlight.opsPerSec.median)}; CPU per check authchart / Auth.js ${ratio(ours.sequential.cpuUsPerOp.median, theirs.sequential.cpuUsPerOp.median)}.`);
  }
  for (const mode of ['compact', 'jwe'] as const) {
    const peer = r.sides[`better-auth, cookie cache (${mode})`];
    if (ran(ours) && ran(peer)) {
      out.push(`- Throughput authchart / better-auth with its ${mode} cookie cache (medians): sequential ${ratio(ours.sequential.opsPerSec.median, peer.sequential.opsPerSec.median)}, ${IN_FLIGHT} in flight ${ratio(ours.inFlight.opsPerSec.median, peer.inFlight.opsPerSec.median)}; CPU per check authchart / better-auth ${ratio(ours.sequential.cpuUsPerOp.median, peer.sequential.cpuUsPerOp.median)}.`);
    }
  }
  const throttled = r.sides['authchart, throttling on'];
  if (ran(ours) && ran(throttled)) {
    out.push(`- Throttling on / off (medians): CPU per check ${ratio(throttled.sequential.cpuUsPerOp.median, ours.sequential.cpuUsPerOp.median)}, throughput ${ratio(throttled.sequential.opsPerSec.median, ours.sequential.opsPerSec.median)} sequential: throttles count sign-in routes, never session checks.`);
  }
  const scoped = r.sides['authchart, auth() in auth(handler)'];
  if (ran(ours) && ran(scoped)) {
    out.push(`- auth() inside auth(handler) / a plain check (medians): CPU per check ${ratio(scoped.sequential.cpuUsPerOp.median, ours.sequential.cpuUsPerOp.median)}, throughput ${ratio(scoped.sequential.opsPerSec.median, ours.sequential.opsPerSec.median)} sequential: the request context the spec's server forms read costs this much.`);
  }
  if (ran(ours) && ran(floor)) {
    out.push(`- authchart against the node:crypto floor (medians): CPU per check ${ratio(ours.sequential.cpuUsPerOp.median, floor.sequential.cpuUsPerOp.median)} the floor's, throughput ${ratio(floor.sequential.opsPerSec.median, ours.sequential.opsPerSec.median)} below it.`);
  }
  out.push(...costSplit(r));
  return [...out, ''];
}

/**
 * Where a check's CPU goes, from the floors: only the check that opens its token (token cache off) is split against
 * the decodeSync floor (a cached check does not decrypt). The parts are timed in loops of their own, so the rest is
 * a difference of medians: stated only when it is above zero, never as a negative share.
 * @internal
 */
export function costSplit(r: SessionCheckResult): string[] {
  const framework = r.sides['floor: h3 app.fetch, same JSON'];
  const floor = r.sides['floor: decodeSync (node:crypto)'];
  const uncached = r.sides['authchart, token cache off'];
  const cached = r.sides.authchart;
  if (!ran(framework)) return [];
  const h3 = framework.sequential.cpuUsPerOp.median;
  const rest = (left: number, what: string) => (left > 0 ? `${num(left)} µs ${what}` : `no measurable rest (the parts, timed apart, add up to ${num(-left)} µs more than the whole: noise)`);
  const out: string[] = [];
  if (ran(uncached) && ran(floor)) {
    const [all, crypto] = [uncached, floor].map((f) => f.sequential.cpuUsPerOp.median);
    out.push(`- Where authchart's ${num(all)} µs of CPU per check go with the token cache off (medians): ${num(h3)} µs h3 + Request/Response, ${num(crypto)} µs opening the token (decodeSync), ${rest(all - h3 - crypto, 'the rest of authchart (cookies, gate, callbacks, session JSON)')}.`);
  }
  if (ran(cached)) {
    const all = cached.sequential.cpuUsPerOp.median;
    out.push(`- A repeat check served by the token cache, ${num(all)} µs (medians): ${num(h3)} µs h3 + Request/Response, ${rest(all - h3, 'authchart (cache hit, cookies, gate, callbacks, session JSON)')}.`);
  }
  return out;
}

function httpSection(r: HttpLoadResult | undefined, failure?: string): string[] {
  const out = ['## 2. Session check over HTTP (node:http on 127.0.0.1, autocannon in a second process, 10 connections)', ''];
  if (!r) return [...out, why(undefined, failure), ''];
  out.push('| side | requests/s | p99 latency ms | server CPU µs/request |', '|---|---|---|---|');
  for (const [side, f] of Object.entries(r)) {
    if (!ran(f)) out.push(`| ${side} | ${f.skipped} | | | | |`);
    else out.push(`| ${side} | ${spread(f.requestsPerSec)} | ${spread(f.p99Ms)} | ${spread(f.serverCpuUsPerReq)} |`);
  }
  const ours = r.authchart;
  const theirs = r['Auth.js'];
  out.push('');
  if (ran(ours) && ran(theirs)) {
    out.push(`- authchart / Auth.js (medians): requests/s ${ratio(ours.requestsPerSec.median, theirs.requestsPerSec.median)}, p99 ${ratio(ours.p99Ms.median, theirs.p99Ms.median)}, server CPU ${ratio(ours.serverCpuUsPerReq.median, theirs.serverCpuUsPerReq.median)}.`);
  }
  const peer = r['better-auth, cookie cache (compact)'];
  if (ran(ours) && ran(peer)) {
    out.push(`- authchart / better-auth with its compact cookie cache, served by better-auth/node's toNodeHandler (medians): requests/s ${ratio(ours.requestsPerSec.median, peer.requestsPerSec.median)}, p99 ${ratio(ours.p99Ms.median, peer.p99Ms.median)}, server CPU ${ratio(ours.serverCpuUsPerReq.median, peer.serverCpuUsPerReq.median)}.`);
  }
  for (const line of httpFloorRatios(r)) out.push(`- ${line}`);
  out.push('');
  return out;
}

/** Server CPU per check against the two node:http floors measured in the same run (issue 32's targets). */
function httpFloorRatios(r: HttpLoadResult): string[] {
  const cached = r.authchart;
  const uncached = r['authchart, token cache off'];
  const staticFloor = r['floor: static JSON'];
  const decryptFloor = r['floor: cookie + decodeSync'];
  const out: string[] = [];
  if (ran(uncached) && ran(decryptFloor)) {
    out.push(`authchart with the token cache off / the cookie + decodeSync floor, server CPU per check (medians): ${ratio(uncached.serverCpuUsPerReq.median, decryptFloor.serverCpuUsPerReq.median)} (target ≤ 1.1×).`);
  }
  if (ran(cached) && ran(staticFloor)) {
    out.push(`authchart, repeat checks served by the token cache / the static JSON floor, server CPU per check (medians): ${ratio(cached.serverCpuUsPerReq.median, staticFloor.serverCpuUsPerReq.median)} (target ≤ 2×).`);
  }
  if (ran(cached) && ran(uncached)) out.push(`Token cache on / off, server CPU per check (medians): ${ratio(cached.serverCpuUsPerReq.median, uncached.serverCpuUsPerReq.median)}.`);
  return out;
}

function oidcSections(r: OidcFlowResult | undefined, failure?: string): string[] {
  const out = ['## 3. OIDC sign-in against a local oidc-provider (code + PKCE + state + nonce)', ''];
  if (!r) return [...out, why(undefined, failure), '', '## 4. Bytes on the wire', '', why(undefined, failure), ''];
  out.push(
    "The OP runs in a child process. App time: the app's own requests (CSRF, sign-in, callback with its calls to the OP); CPU: this process during them; CPU in the handler: the part of it inside the app's handler, without the test client's work around each request; whole flow: including the user's login at the OP.",
    '',
    '| side | app time ms/flow | CPU ms/flow | CPU in the handler ms/flow | whole flow ms | requests to the OP/flow |',
    '|---|---|---|---|---|---|',
  );
  for (const [side, f] of Object.entries(r)) {
    if (!ran(f)) out.push(`| ${side} | ${f.skipped} | | | | | |`);
    else out.push(`| ${side} | ${spread(f.appMs)} | ${spread(f.cpuMs)} | ${spread(f.handlerCpuMs)} | ${spread(f.totalMs)} | ${f.opRequests} |`);
  }
  const ours = r.authchart;
  const theirs = r['Auth.js'];
  out.push('');
  if (ran(ours) && ran(theirs)) {
    out.push(`- authchart / Auth.js (medians): app time ${ratio(ours.appMs.median, theirs.appMs.median)}, CPU ${ratio(ours.cpuMs.median, theirs.cpuMs.median)}, CPU in the handler ${ratio(ours.handlerCpuMs.median, theirs.handlerCpuMs.median)}.`, '');
  }
  out.push('## 4. Bytes on the wire (one OIDC sign-in)', '', '| side | flow cookies | flow Set-Cookie bytes | cookie header at callback | session Set-Cookie bytes |', '|---|---|---|---|---|');
  for (const [side, f] of Object.entries(r)) {
    if (!ran(f)) out.push(`| ${side} | ${f.skipped} | | | | |`);
    else {
      const c = f.cookies;
      out.push(`| ${side} | ${c.flowCookieNames.map((n) => `\`${n}\``).join(', ')} | ${c.flowSetCookieBytes} | ${c.callbackCookieHeaderBytes} | ${c.sessionSetCookieBytes} |`);
    }
  }
  out.push('');
  if (ran(ours) && ran(theirs)) {
    out.push(`- authchart / Auth.js: flow cookies ${ratio(ours.cookies.flowSetCookieBytes, theirs.cookies.flowSetCookieBytes)}, cookie header at callback ${ratio(ours.cookies.callbackCookieHeaderBytes, theirs.cookies.callbackCookieHeaderBytes)}, session cookie ${ratio(ours.cookies.sessionSetCookieBytes, theirs.cookies.sessionSetCookieBytes)}.`, '');
  }
  return out;
}

function databaseSection(r: DatabaseResult | undefined, failure?: string): string[] {
  const out = ['## 5. Database session check (`GET /auth/session`, session-token cookie)', ''];
  if (!r) return [...out, why(undefined, failure), ''];
  out.push(`| side | SQL statements/check | checks/s sequential | CPU µs/check sequential | checks/s ${IN_FLIGHT} in flight |`, '|---|---|---|---|---|');
  for (const [side, f] of Object.entries(r)) {
    if (!ran(f)) out.push(`| ${side} | ${f.skipped} | | | | |`);
    else out.push(`| ${side} | ${num(f.queriesPerCheck)} | ${spread(f.sequential.checksPerSec)} | ${spread(f.sequential.cpuUsPerCheck)} | ${spread(f.inFlight.checksPerSec)} |`);
  }
  return [...out, ''];
}

function bundleSection(r: BundleResult | undefined, failure?: string): string[] {
  const out = ['## 6. Bundle: credentials + GitHub (esbuild, minified ESM, Node built-ins external, gzip -9; authchart from the installed tarball)', ''];
  if (!r) return [...out, why(undefined, failure), ''];
  out.push('| side | minified (loaded at start) | gzipped | after signing in with each provider, gzipped | never loaded unless used, gzipped | largest parts at start (minified) |', '|---|---|---|---|---|---|');
  for (const [side, f] of Object.entries(r)) {
    if (!ran(f)) out.push(`| ${side} | ${f.skipped} | | | | |`);
    else out.push(`| ${side} | ${kb(f.minifiedBytes)} | ${kb(f.gzipBytes)} | ${kb(f.inUseGzipBytes)} | ${kb(Math.max(0, f.lazyGzipBytes))} | ${f.largest.map((p) => `${p.name} ${kb(p.bytes)}`).join(', ')} |`);
  }
  const ours = r.authchart;
  const theirs = r['Auth.js'];
  out.push('');
  if (ran(ours) && ran(theirs)) out.push(`- authchart / Auth.js gzipped, at start: ${ratio(ours.gzipBytes, theirs.gzipBytes)}; after signing in with credentials and GitHub: ${ratio(ours.inUseGzipBytes, theirs.inUseGzipBytes)}.`);
  for (const [side, f] of Object.entries(r)) if (ran(f)) out.push(`- Provider modules in ${side}'s bundle: ${f.presets.join(', ') || 'none'}.`);
  out.push('');
  if (ran(ours) && ours.features) {
    out.push(
      "Each optional feature's bytes. At start: what the feature's own modules put in the start bundle above, of an app that does not use it (the bundle built again with those modules emptied: the difference, minified). Once used: what the app's signed-in bundle grows by when it imports what the feature needs and loads the feature's chunks, gzipped.",
      '',
      '| feature | in the start bundle without it, minified | once used, gzipped |',
      '|---|---|---|',
      ...ours.features.map((f) => `| ${f.name} | ${kb(f.startBytes)} | +${kb(f.whenUsedGzipBytes)} |`),
      '',
    );
  }
  return out;
}

function throttleSection(r: ThrottleBenchResult | undefined, failure?: string): string[] {
  const out = ['## 7. Throttled sign-in (`POST /auth/callback/credentials`, credentials, in process, sequential)', ''];
  if (!r) return [...out, why(undefined, failure), ''];
  out.push('Allowed: under every limit (the sign-in counts against the client and the account, and gives its point back). Refused: over the limit, answered 429 before the flow runs.', '');
  out.push('| throttle store | sign-ins/s allowed | CPU µs/sign-in allowed | refusals/s | CPU µs/refusal |', '|---|---|---|---|---|');
  for (const [side, f] of Object.entries(r.sides)) {
    if (!ran(f)) out.push(`| ${side} | ${f.skipped} | | | |`);
    else out.push(`| ${side} | ${spread(f.allowed.opsPerSec)} | ${spread(f.allowed.cpuUsPerOp)} | ${f.refused ? spread(f.refused.opsPerSec) : '–'} | ${f.refused ? spread(f.refused.cpuUsPerOp) : '–'} |`);
  }
  const off = r.sides.off;
  out.push('');
  if (ran(off)) {
    for (const [side, f] of Object.entries(r.sides)) {
      if (side !== 'off' && ran(f)) out.push(`- ${side}: an allowed sign-in takes ${ratio(off.allowed.opsPerSec.median, f.allowed.opsPerSec.median)} the time of one without throttling.`);
    }
  }
  out.push('');
  return out;
}

function passwordSection(r: PasswordBenchResult | undefined, failure?: string): string[] {
  const out = ['## 9. Password sign-in beside the hash alone (`POST /auth/callback/password`, in process, JWT session, sequential)', ''];
  if (!r) return [...out, why(undefined, failure), ''];
  out.push(`Hash: ${r.parameters} (OWASP's parameters, the Password provider's default). The "verify alone" side is @node-rs/argon2's verify of the same hash: the floor no password sign-in can go under.${r.betterAuthVersion ? ` better-auth ${r.betterAuthVersion} signs in with the same argon2id (its \`emailAndPassword.password\` hash and verify given this hasher in place of its default scrypt), memory adapter, compact cookie cache.` : ''}`, '');
  out.push('| side | ms/op | CPU ms/op |', '|---|---|---|');
  for (const [side, f] of Object.entries(r.sides)) out.push(ran(f) ? `| ${side} | ${spread(f.msPerOp)} | ${spread(f.cpuMsPerOp)} |` : `| ${side} | ${f.skipped} | |`);
  const floorSide = r.sides['argon2id verify alone'];
  out.push('');
  if (ran(floorSide)) {
    const floor = floorSide.msPerOp.median;
    for (const [side, f] of Object.entries(r.sides)) {
      if (side === 'argon2id verify alone' || !ran(f)) continue;
      out.push(`- ${side}: ${ratio(f.msPerOp.median, floor)} the hash alone (${num(f.msPerOp.median - floor)} ms beside it).`);
    }
  }
  const ours = r.sides['sign-in, right password'];
  const peer = r.sides['better-auth sign-in, right password (same argon2id)'];
  if (ran(ours) && ran(peer)) out.push(`- authchart / better-auth, one sign-in with the right password (medians): ${ratio(ours.msPerOp.median, peer.msPerOp.median)} the time, ${ratio(ours.cpuMsPerOp.median, peer.cpuMsPerOp.median)} the CPU.`);
  out.push('- An unknown address is checked against a dummy hash of the same parameters, so its time tells nothing about whether the account exists.', '');
  return out;
}

function otelSection(r: OtelOffResult | undefined, failure?: string): string[] {
  const out = ['## 8. OpenTelemetry installed without a tracer provider (credentials sign-in, in process, fresh processes)', ''];
  if (!r) return [...out, why(undefined, failure), ''];
  const v = otelVerdict(r);
  const x3 = (s: Spread) => `${s.min.toFixed(3)} / **${s.median.toFixed(3)}** / ${s.max.toFixed(3)}`;
  out.push(
    'Each round starts three processes at the same time (so the load of other work falls on all three alike): one where module hooks hide `@opentelemetry/api` (as if not installed), the same again (the A/A control: two identical sides, so any difference between them is noise), and one with the API installed and no tracer provider registered. Each figure is the median CPU of one sign-in in its process; the ratios of a round divide by the first hidden process of that round.',
    '',
    '| side | CPU ms/sign-in | / API not installed, per round | CPU ns per flow in the tracing hook |',
    '|---|---|---|---|',
    `| API not installed | ${spread(r.absentCpuMs)} | – | ${spread(r.hookAbsentNs)} |`,
    `| API not installed, again (A/A control) | ${spread(r.controlCpuMs)} | ${x3(r.control)} | (in the row above) |`,
    `| API installed, no tracer provider | ${spread(r.presentCpuMs)} | ${x3(r.ratio)} | ${spread(r.hookNs)} |`,
    '',
    `- Noise in this run: two identical processes differed by ${x3(r.control)} (A/A, ${r.control.runs} rounds), a band of ±${pct(v.noise)}.`,
    `- Installed without a provider / not installed: median ${r.ratio.median.toFixed(3)}×, ${v.ratioInBand ? 'inside' : 'outside'} the A/A band ${r.control.min.toFixed(3)}–${r.control.max.toFixed(3)}.`,
    `- Measured directly: the tracing hook a flow run calls (\`flowSpan\`: no span, no promise) costs ${num(r.hookNs.median)} ns of CPU per flow with the API installed and no provider, ${pct(r.hookShare.median)} of a sign-in's CPU in the same process (${pct(r.hookShare.max)} at most), ${v.hookBelowNoise ? 'below' : 'above'} the ±${pct(v.noise)} noise band.`,
    `- Verdict: ${v.measurable ? '**measurable**' : 'nothing measurable'}. The rule: a cost is measurable when the median ratio falls outside the range two identical processes spanned in the same run, or when the hook's directly measured share of a sign-in exceeds that range's half-width.`,
    '',
  );
  return out;
}

function activitySection(r: ActivityBenchResult | undefined, failure?: string): string[] {
  const out = ['## 10. The activity log on a credentials sign-in (in process, fresh processes)', ''];
  if (!r) return [...out, why(undefined, failure), ''];
  out.push(
    'Each round is a fresh process holding two apps of one store, the log off and on, the same otherwise, which sign in by turns (two processes side by side differed by more than the log costs). Each figure is the median CPU of one sign-in per side (median / min–max over rounds); the ratio is on / off per round. Target (issue 48): at most 1.10. With PGlite the database runs inside the app, so its side with the log on pays for an INSERT the other side never makes (JWT sessions write nothing): that row is the cost of an embedded database, not of the record. The PostgreSQL row is the one an app with a database pays: the record joins the statement that writes the session.',
    '',
    '| store | CPU ms/sign-in, log off | log on | on / off | ≤ 1.10 |',
    '|---|---|---|---|---|',
    ...activityLines(r),
    '',
  );
  return out;
}

const pct = (share: number): string => `${(share * 100).toPrecision(2)}%`;

/**
 * "Costs nothing measurable" (issue 32), judged on this run's figures alone: the A/A control says how far noise
 * moves a ratio here (`noise`, half the width of its range); the API installed without a provider costs something
 * measurable when its median ratio lies outside that range, or when the hook's own CPU is a larger share of a
 * sign-in than `noise`.
 */
export function otelVerdict(r: OtelOffResult): { noise: number; ratioInBand: boolean; hookBelowNoise: boolean; measurable: boolean } {
  const noise = (r.control.max - r.control.min) / 2;
  const ratioInBand = r.ratio.median >= r.control.min && r.ratio.median <= r.control.max;
  const hookBelowNoise = r.hookShare.median <= noise;
  return { noise, ratioInBand, hookBelowNoise, measurable: !ratioInBand || !hookBelowNoise };
}

/** One of the issue's targets, judged on this run's medians (`met` undefined when a side did not run). */
export interface Target {
  name: string;
  figure: string;
  met: boolean | undefined;
}

/**
 * The issue's targets against this run.
 *
 * @example
 * const missed = targets(results).filter((t) => t.met === false)
 */
export function targets(results: BenchResults): Target[] {
  const out: Target[] = [];
  const s = results.session?.sides;
  const ours = s?.authchart;
  const theirs = s?.['Auth.js'];
  const floor = s?.['floor: decodeSync (node:crypto)'];
  if (ran(ours) && ran(theirs)) {
    const seq = ours.sequential.opsPerSec.median / theirs.sequential.opsPerSec.median;
    const flight = ours.inFlight.opsPerSec.median / theirs.inFlight.opsPerSec.median;
    out.push({ name: 'session check ≥ 10× Auth.js throughput', figure: `${seq.toFixed(1)}× sequential, ${flight.toFixed(1)}× ${IN_FLIGHT} in flight`, met: seq >= 10 && flight >= 10 });
  } else out.push({ name: 'session check ≥ 10× Auth.js throughput', figure: 'Auth.js did not run', met: undefined });
  for (const mode of ['compact', 'jwe'] as const) {
    const peer = s?.[`better-auth, cookie cache (${mode})`];
    const name = `session check ahead of better-auth's ${mode} cookie cache (issue 50)`;
    if (ran(ours) && ran(peer)) {
      const seq = ours.sequential.opsPerSec.median / peer.sequential.opsPerSec.median;
      const flight = ours.inFlight.opsPerSec.median / peer.inFlight.opsPerSec.median;
      out.push({ name, figure: `${seq.toFixed(1)}× sequential, ${flight.toFixed(1)}× ${IN_FLIGHT} in flight`, met: seq > 1 && flight > 1 });
    } else out.push({ name, figure: 'better-auth did not run', met: undefined });
  }
  if (ran(ours) && ran(floor)) {
    const cpu = ours.sequential.cpuUsPerOp.median / floor.sequential.cpuUsPerOp.median;
    const ops = floor.sequential.opsPerSec.median / ours.sequential.opsPerSec.median;
    out.push({ name: 'session check within 2× of the node:crypto floor', figure: `CPU ${cpu.toFixed(2)}×, throughput ${ops.toFixed(2)}× below (sequential)`, met: cpu <= 2 && ops <= 2 });
  }
  const uncached = s?.['authchart, token cache off'];
  if (ran(uncached) && ran(floor)) {
    const cpu = uncached.sequential.cpuUsPerOp.median / floor.sequential.cpuUsPerOp.median;
    out.push({ name: 'in-process check, token cache off, ≤ 1.3× the decodeSync floor (issue 32)', figure: `CPU ${cpu.toFixed(2)}× (sequential)`, met: cpu <= 1.3 });
  }
  const h = results.http;
  const httpOurs = h?.authchart;
  const httpPeer = h?.['better-auth, cookie cache (compact)'];
  const httpPeerName = "HTTP session check ahead of better-auth's compact cookie cache (issue 50)";
  if (ran(httpOurs) && ran(httpPeer)) {
    const rps = httpOurs.requestsPerSec.median / httpPeer.requestsPerSec.median;
    out.push({ name: httpPeerName, figure: `${rps.toFixed(1)}× requests/s`, met: rps > 1 });
  } else if (h) out.push({ name: httpPeerName, figure: 'better-auth did not run', met: undefined });
  const httpUncached = h?.['authchart, token cache off'];
  const decryptFloor = h?.['floor: cookie + decodeSync'];
  const staticFloor = h?.['floor: static JSON'];
  if (ran(httpUncached) && ran(decryptFloor)) {
    const cpu = httpUncached.serverCpuUsPerReq.median / decryptFloor.serverCpuUsPerReq.median;
    out.push({ name: 'HTTP check ≤ 1.1× the node:http + cookie + decodeSync floor (issue 32)', figure: `server CPU ${cpu.toFixed(2)}×`, met: cpu <= 1.1 });
  }
  if (ran(httpOurs) && ran(staticFloor)) {
    const cpu = httpOurs.serverCpuUsPerReq.median / staticFloor.serverCpuUsPerReq.median;
    out.push({ name: 'HTTP repeat check (token cache) ≤ 2× the static JSON floor (issue 32)', figure: `server CPU ${cpu.toFixed(2)}×`, met: cpu <= 2 });
  }
  const o = results.oidc;
  if (o && ran(o.authchart) && ran(o['Auth.js'])) {
    const time = o.authchart.appMs.median / o['Auth.js'].appMs.median;
    const cpu = o.authchart.cpuMs.median / o['Auth.js'].cpuMs.median;
    out.push({ name: 'OIDC flow no slower than Auth.js', figure: `app time ${time.toFixed(2)}×, CPU ${cpu.toFixed(2)}×`, met: time <= 1 && cpu <= 1 });
    out.push({ name: 'OIDC sign-in CPU ≤ 0.5× Auth.js (issue 32)', figure: `CPU ${cpu.toFixed(2)}× (${num(o.authchart.cpuMs.median)} / ${num(o['Auth.js'].cpuMs.median)} ms per flow)`, met: cpu <= 0.5 });
    const bytes = o.authchart.cookies.flowSetCookieBytes / o['Auth.js'].cookies.flowSetCookieBytes;
    out.push({ name: 'flow cookie bytes ≤ half of Auth.js', figure: `${o.authchart.cookies.flowSetCookieBytes} / ${o['Auth.js'].cookies.flowSetCookieBytes} bytes = ${bytes.toFixed(2)}×`, met: bytes <= 0.5 });
  } else out.push({ name: 'OIDC flow and flow cookies against Auth.js', figure: 'Auth.js did not run', met: undefined });
  const otel = results.otel;
  if (otel) {
    const v = otelVerdict(otel);
    out.push({
      name: 'OpenTelemetry installed without a tracer provider costs nothing measurable: inside the A/A noise of the same run (issue 32)',
      figure: `CPU ${otel.ratio.median.toFixed(3)}× not installed (A/A ${otel.control.min.toFixed(3)}–${otel.control.max.toFixed(3)}, ${otel.ratio.runs} rounds); hook ${num(otel.hookNs.median)} ns/flow = ${pct(otel.hookShare.median)} of a sign-in`,
      met: !v.measurable,
    });
  }
  return out;
}

/**
 * The whole results file.
 *
 * @example
 * writeFileSync('bench/RESULTS.md', renderResults(await runBenchmarks(FULL)))
 */
export function renderResults(results: BenchResults, notes: string[] = []): string {
  const m = results.machine;
  const f = results.failures;
  const lines = [
    '# Benchmark results',
    '',
    `Written by \`npm run bench\` (${m.settings} counts) on ${m.date}, in ${m.seconds.toFixed(0)} s.`,
    '',
    `- Machine: ${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB, ${m.os}`,
    `- Node ${m.node}; Auth.js: \`@auth/core\` ${m.authjsVersion ?? 'not installed'}`,
    `- 1-minute load average: ${m.load[0].toFixed(2)} at the start, ${m.load[1].toFixed(2)} at the end (anything above 0 is other work sharing the cores; CPU µs per operation moves less than throughput).`,
    m.isolated
      ? '- Each section ran in a process of its own (bench/section-child.ts): none measures code that another one warmed or deoptimised; within a section, the sides share one process and alternate.'
      : '- All sections ran in one process, one after another.',
    '- Ratios are ours / theirs on medians: above 1 is better for throughput, below 1 is better for time, CPU and bytes.',
    '- Cold start from the packed build (issue 32): `npm run bench:cold`, written to [COLD-START.md](COLD-START.md).',
    '',
    '## Targets (issues 8 and 32)',
    '',
    '| target | this run | met |',
    '|---|---|---|',
    ...targets(results).map((t) => `| ${t.name} | ${t.figure} | ${t.met === undefined ? '–' : t.met ? 'yes' : '**no**'} |`),
    '',
    ...sessionSection(results.session, f.session),
    ...httpSection(results.http, f.http),
    ...oidcSections(results.oidc, f.oidc),
    ...databaseSection(results.database, f.database),
    ...bundleSection(results.bundle, f.bundle),
    ...throttleSection(results.throttle, f.throttle),
    ...otelSection(results.otel, f.otel),
    ...passwordSection(results.password, f.password),
    ...activitySection(results.activity, f.activity),
  ];
  if (notes.length) lines.push('## Notes', '', ...notes.map((n) => `- ${n}`), '');
  return lines.join('\n');
}
