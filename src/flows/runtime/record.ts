// The record one flow run leaves behind: who ran it, how it ended, the path it took, and for a failure the
// evidence (type, message, state, expected vs. actual) as plain JSON, so a logger can ship it anywhere. Secrets
// (tokens, codes, states, nonces, challenges, passwords) are redacted from the evidence before anyone sees it.
import { createHmac, randomBytes } from 'node:crypto';
import { AuthError } from '../../core/errors.js';
import { guardLabel, type TraceEntry } from './observe/refs.js';

export { isFlowId, newFlowId } from './flow-id.js';

/** How a flow run ended: the `status` of its FlowResult. */
export type FlowStatus = 'signedIn' | 'redirected' | 'failed' | 'refused' | 'paused' | 'assured';

/** Why a flow failed, in plain JSON: the error's type and message and the evidence the machine recorded. */
export interface FlowErrorEvidence {
  /** The error class's stable type (`InvalidCheck`), not the public one the URL shows. */
  type: string;
  message: string;
  /** The state the flow failed in (`failed.invalidCheck`), absent when it failed before the machine ran. */
  state?: string;
  /** The event that led there. */
  event?: string;
  expected?: unknown;
  actual?: unknown;
  /** The underlying error (`TypeError: fetch failed`), when one was wrapped. */
  cause?: string;
}

/**
 * One flow run, as `logger.debug` receives it (message `flow <machine> <status>`) and the inspector lists it.
 * A flow that pauses for the browser keeps its `id` across requests: the sign-in request and the callback
 * request of one OAuth sign-in log two records with the same id.
 *
 * @example
 * const auth = createAuthHandler({ providers, debug: true, logger: {
 *   debug: (message, record) => { if (message.startsWith('flow ')) ship(record as FlowRecord) },
 * } })
 */
export interface FlowRecord {
  id: string;
  provider: string;
  machine: string;
  /** When the run started (`Date.now()`). */
  startedAt: number;
  /** Time spent in this request, from restoring the machine to dispatching its events. */
  durationMs: number;
  status: FlowStatus;
  /** The transitions taken in this request, in order. */
  trace: TraceEntry[];
  error?: FlowErrorEvidence;
}

// Evidence can hold anything a check compared (tokens, claims, whole responses); a record stays small.
const MAX_TEXT = 1_000;
const MAX_JSON = 2_000;

function clip(text: string, max = MAX_TEXT): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length} chars)` : text;
}

/**
 * Turns an evidence value into plain JSON of bounded size: primitives stay, errors become `Name: message`,
 * small objects are copied through JSON, anything larger or unserializable becomes a clipped string.
 */
export function plainValue(value: unknown): unknown {
  if (value === null || typeof value === 'boolean' || typeof value === 'number') return value;
  if (value === undefined) return undefined;
  if (typeof value === 'string') return clip(value);
  if (typeof value === 'bigint' || typeof value === 'symbol') return value.toString();
  if (typeof value === 'function') return '[function]';
  if (value instanceof Error) return clip(`${value.name}: ${value.message}`);
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch {
    // Circular structures and throwing getters end up as their string form.
  }
  if (json === undefined) return clip(String(value));
  return json.length > MAX_JSON ? clip(json, MAX_JSON) : (JSON.parse(json) as unknown);
}

// Field names whose values are secrets wherever they appear (OAuth parameters and token responses, WebAuthn
// responses, cookies, credentials forms).
const SECRET_KEY = /token|secret|passw|verifier|nonce|challenge|assertion|signature|cookie|authorization|csrf|otp|private|^code$|^state$|^pin$/i;
// What a generated secret looks like: a long run of base64url or hex characters. An identifier-like word
// ("WebAuthnVerificationError") has no digit and is shorter than 32, so it is left readable.
const SECRET_RUN = /[A-Za-z0-9_-]{20,}/g;
const looksRandom = (run: string) => run.length >= 32 || /\d/.test(run);
// `"code":"…"` in a clipped JSON string, `?code=…&state=…` in a URL or a message.
const SECRET_JSON_FIELD = /("([^"\\]{1,64})"\s*:\s*)"(?:[^"\\]|\\.)*"/g;
const SECRET_PARAM = /([?&#;\s]|^)([A-Za-z_][\w.-]{0,63})=([^&#\s"']+)/g;

// Fingerprints let the evidence show whether two redacted values are equal (expected vs. actual state) without
// showing either; keyed per process, so a guessable value cannot be confirmed offline from its fingerprint. The key
// is made on first use: workers refuse random values at module level, and this module loads as a lazy chunk.
let fingerprintKey: Buffer | undefined;
const fingerprint = (value: string) => {
  fingerprintKey ??= randomBytes(32);
  return `[redacted #${createHmac('sha256', fingerprintKey).update(value).digest('hex').slice(0, 8)}]`;
};

/**
 * A text with every secret-looking part replaced: long random-looking runs by a fingerprint, values of secret
 * fields and query parameters by `[redacted]`.
 *
 * @example
 * redactText('state mismatch: expected 3kq…(43 chars)') // 'state mismatch: expected [redacted #1a2b3c4d]'
 */
export function redactText(text: string): string {
  return text
    .replace(SECRET_JSON_FIELD, (whole, head: string, key: string) => (SECRET_KEY.test(key) ? `${head}"[redacted]"` : whole))
    .replace(SECRET_PARAM, (whole, lead: string, key: string) => (SECRET_KEY.test(key) ? `${lead}${key}=[redacted]` : whole))
    .replace(SECRET_RUN, (run) => (looksRandom(run) ? fingerprint(run) : run));
}

/** A plain JSON value with its secrets redacted: secret fields wholly, other strings as {@link redactText} does. */
export function redactValue(value: unknown, key?: string): unknown {
  if (key !== undefined && SECRET_KEY.test(key) && value !== null && value !== undefined && value !== '') return '[redacted]';
  if (typeof value === 'string') return redactText(value);
  if (Array.isArray(value)) return value.map((v) => redactValue(v));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactValue(v, k)]));
  return value;
}

/** The evidence of a failed flow's error, as plain JSON, its secrets redacted. */
export function errorEvidence(error: unknown): FlowErrorEvidence {
  if (!(error instanceof Error)) return { type: 'Error', message: redactText(clip(String(error))) };
  const type = error instanceof AuthError ? error.type : error.name;
  const evidence: FlowErrorEvidence = { type, message: redactText(clip(error.message)) };
  const cause = (error as { cause?: unknown }).cause;
  if (!cause || typeof cause !== 'object') return evidence;
  const { state, event, expected, actual, err } = cause as Record<string, unknown>;
  if (typeof state === 'string') evidence.state = state;
  if (typeof event === 'string') evidence.event = event;
  if (expected !== undefined) evidence.expected = redactValue(plainValue(expected));
  if (actual !== undefined) evidence.actual = redactValue(plainValue(actual));
  if (err instanceof Error && err !== error) evidence.cause = redactText(clip(`${err.name}: ${err.message}`));
  return evidence;
}

/** What {@link flowRecord} needs from a finished run: a record whose error is still the thrown value. */
export type FlowRun = Omit<FlowRecord, 'error'> & { error?: unknown };

/** Builds the record of a run; the error, if any, is reduced to its evidence. */
export function flowRecord(run: FlowRun): FlowRecord {
  const { error, ...rest } = run;
  const record: FlowRecord = { ...rest, durationMs: Math.round(run.durationMs * 10) / 10, trace: [...run.trace] };
  if (run.status === 'failed' && error !== undefined) record.error = errorEvidence(error);
  return record;
}

function show(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * A record as plain text, for the error page and for terminals: the outcome, the evidence, then one line per
 * transition with the time since the run started.
 *
 * @example
 * formatFlowRecord(record)
 * // flow 3f2a… · provider github · machine oauth · failed in 4.2 ms
 * // InvalidCheck: The flow cookie is missing ...
 * // path:
 * //   +0 ms  awaitingCallback --CALLBACK--> exchanging
 */
export function formatFlowRecord(record: FlowRecord): string {
  const lines = [
    `flow ${record.id} · provider ${record.provider} · machine ${record.machine} · ${record.status} in ${record.durationMs} ms`,
    `started ${new Date(record.startedAt).toISOString()}`,
  ];
  const e = record.error;
  if (e) {
    lines.push('', `${e.type}: ${e.message}`);
    if (e.state !== undefined) lines.push(`  state:    ${e.state}`);
    if (e.event !== undefined) lines.push(`  event:    ${e.event}`);
    if (e.expected !== undefined) lines.push(`  expected: ${show(e.expected)}`);
    if (e.actual !== undefined) lines.push(`  actual:   ${show(e.actual)}`);
    if (e.cause !== undefined) lines.push(`  cause:    ${e.cause}`);
  }
  lines.push('', record.trace.length > 0 ? 'path:' : 'path: (no transition was taken in this request)');
  for (const t of record.trace) {
    const label = guardLabel(t);
    const guard = label === undefined ? '' : ` [${label}]`;
    lines.push(`  +${Math.max(0, t.at - record.startedAt)} ms  ${t.from} --${t.event}${guard}--> ${t.to}`);
  }
  return lines.join('\n');
}
