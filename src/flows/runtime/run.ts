// The only code that drives a flow machine: restore -> send -> settle -> persist. A run ends settled: in a final
// state (its outcome), or paused in an `awaiting` state (a snapshot to seal into a flow cookie). flow.ts orders the
// machines of one request. Errors inside an actor never escape; they become AuthErrors.
import { createActor, type AnyMachineSnapshot, type AnyStateMachine, type EventObject, type InspectionEvent, } from 'xstate';
import { AdapterError, AuthError, CallbackRouteError, CredentialsSignin, errorClassesByType, InvalidCheck, InvalidRequest } from '../../core/errors.js';
import { dispatchEvent, isEventName } from '../../core/events.js';
import type { Account, Profile, User } from '../../core/types.js';
import { AWAITING, type FlowDeps, type FlowOutput, type FlowResponse } from './contract.js';
import type { FlowContextBase } from './context.js';
import { recordsRead } from './log.js';
import { knownMethods } from '../../session/verification.js';
import { isTokenSpend } from '../../session/spend.js';
import type { TraceEntry } from './observe/refs.js';
import { observeRun } from './observe/observer.js';
import { inFlowSpan } from './observe/flow-span.js';
import type { MachineSpan } from './observe/spans.js';
import { statePathOf as statePath } from './state-path.js';

import type { PausedFlow } from './cookie.js';
import { englishMessages } from '../../core/messages/catalog.js';
import type { Messages } from '../../core/messages/en.js';

export type { PausedFlow };

/** How a run settled. */
export type SettledFlow =
  | { status: 'signedIn'; redirect: string; user: User; account: Account | null; profile?: Profile; isNewUser?: boolean; trace: TraceEntry[] }
  | { status: 'redirected'; url: string; trace: TraceEntry[] }
  | { status: 'failed'; error: AuthError; state?: string; trace: TraceEntry[] }
  | {
      status: 'paused';
      paused: PausedFlow;
      response: FlowResponse;
      trace: TraceEntry[];
      /** The second-factor stage paused, not the provider's flow: sealed in its own cookie slot. */
      slot?: 'second-factor';
    }
  /**
   * The paused machine does not take the event this request brought (a stray POST, a replayed form of another
   * step): an InvalidRequest, and the paused flow is kept as it was (its cookie stays; nothing ran).
   */
  | { status: 'refused'; error: AuthError; state?: string; trace: TraceEntry[] }
  /** A signed-in user's second-factor check, or a signed-in flow, ended: its output, for the runtime to apply. */
  | { status: 'assured'; output: unknown; trace: TraceEntry[] };

/** How long one request may wait for a flow to settle before giving up. */
export const SETTLE_TIMEOUT_MS = 30_000;

/** Context keys that live only while a request runs: never sealed into a flow cookie. */
const TRANSIENT_KEYS = ['deps', 'response', 'failure'] as const;

export interface RunOptions {
  /** Overrides SETTLE_TIMEOUT_MS (tests use a short one). */
  settleTimeoutMs?: number;
  /** Record the trace even when the configuration reads no records (a caller that asked for it). */
  keepTrace?: boolean;
  /** The OpenTelemetry span of this machine's run (spans.ts), when one records. */
  span?: MachineSpan;
}

/** The error type a reached failure state names, read through the public `getMeta()`. */
function failureType(snapshot: AnyMachineSnapshot): string | undefined {
  for (const meta of Object.values(snapshot.getMeta() as Record<string, unknown>)) {
    const error = (meta as { error?: unknown } | undefined)?.error;
    if (typeof error === 'string') return error;
  }
  return undefined;
}

function isSettled(snapshot: AnyMachineSnapshot): boolean {
  return snapshot.status !== 'active' || snapshot.hasTag(AWAITING) || failureType(snapshot) !== undefined;
}

/** Builds the typed error a failure state names, with the evidence the machine recorded. */
function errorFromState(type: string, context: FlowContextBase, state: string, event: string | undefined): AuthError {
  const Cls = errorClassesByType.get(type) ?? CallbackRouteError;
  const f = context.failure ?? {};
  // A database failure is reported as itself (AdapterError), not as the generic catch-all state that caught it.
  // So is a kind of the state's error (SsoAddressRefused, a refused OAuthCallbackError): the more precise type.
  if (f.err instanceof AuthError && (f.err.type === type || (f.err instanceof AdapterError && Cls === CallbackRouteError) || (Cls !== CallbackRouteError && f.err instanceof Cls))) {
    f.err.cause = { ...f.err.cause, state, event };
    return f.err;
  }
  const error = new Cls(f.message ?? type, { ...(f.err instanceof Error ? { err: f.err } : {}), state, event, expected: f.expected, actual: f.actual });
  if (error instanceof CredentialsSignin && f.code) error.code = f.code;
  return error;
}

/** A machine's settled snapshot, as plain data. `done` carries the machine's output. */
type Settlement =
  | { kind: 'done'; output: unknown; context: FlowContextBase; state: string }
  | { kind: 'failed'; error: AuthError; state: string }
  /** The paused machine does not take the event: nothing ran, the paused flow stands. */
  | { kind: 'refused'; error: AuthError; state: string }
  | { kind: 'paused'; paused: PausedFlow; response: FlowResponse };

function settlementOf(machine: AnyStateMachine, snapshot: AnyMachineSnapshot, trace: TraceEntry[], problem?: string, sent?: string, messages?: Messages): Settlement {
  const context = snapshot.context as FlowContextBase;
  const state = statePath(snapshot.value);
  // Without a trace (nobody reads it, so nothing was inspected), the event this request sent.
  const lastEvent = trace.at(-1)?.event ?? sent;
  if (problem || snapshot.status === 'error') {
    const cause = problem ?? (snapshot.error instanceof Error ? snapshot.error : String(snapshot.error));
    return { kind: 'failed', error: new CallbackRouteError(cause, { state, event: lastEvent }), state };
  }
  const type = failureType(snapshot);
  if (type) return { kind: 'failed', error: errorFromState(type, context, state, lastEvent), state };
  if (snapshot.status === 'done') return { kind: 'done', output: snapshot.output, context, state };
  // Active and awaiting: strip what lives only within a request; the rest is sealed.
  const { response } = context;
  if (!isFlowResponse(response, messages)) return { kind: 'failed', error: new CallbackRouteError('A paused flow gave no response the HTTP layer knows.', { state }), state };
  const persisted: Record<string, unknown> = { ...(context as unknown as Record<string, unknown>) };
  for (const key of TRANSIENT_KEYS) delete persisted[key];
  return { kind: 'paused', paused: { machine: machine.id, value: snapshot.value, context: persisted }, response };
}

/** Text a page can show: a flow's own words, or the id of a built-in message (never an unknown id, shown raw). */
function isFlowText(value: unknown, messages: Messages | undefined): boolean {
  if (typeof value === 'string') return true;
  const id = (value as { message?: unknown } | null | undefined)?.message;
  return typeof id === 'string' && messages !== undefined && Object.hasOwn(messages, id);
}

/** A settled run that shows a form: its title may name a built-in message, checked against English's ids. */
function showsForm(snapshot: AnyMachineSnapshot): boolean {
  const response = (snapshot.context as FlowContextBase | undefined)?.response as FlowResponse | undefined;
  return snapshot.status === 'active' && response?.kind === 'page' && response.page === 'form';
}

/** A custom flow's `context.response` is checked like its output: an unknown kind would answer nothing. */
function isFlowResponse(value: unknown, messages: Messages | undefined): value is FlowResponse {
  const r = value as FlowResponse | undefined;
  if (!r || typeof r !== 'object') return false;
  switch (r.kind) {
    case 'redirect':
      return typeof r.url === 'string' && r.url !== '';
    case 'json':
      return true;
    case 'html':
      return typeof r.body === 'string';
    case 'page':
      if (r.page === 'form') return isFlowText(r.data?.title, messages) && Array.isArray(r.data.fields);
      if (r.page === 'signUp') return typeof r.data?.provider === 'string' && typeof r.data.email === 'string';
      return r.page === 'confirmEmail' && typeof r.data?.provider === 'string';
    default:
      return false;
  }
}

/**
 * The inspect callback of a run: its one observer (observe/), feeding the trace when someone reads it and the span
 * when one records, else none at all (xstate then builds no inspection events: most production runs).
 */
function inspectorOf(trace: TraceEntry[], options: RunOptions, config: FlowDeps['req']['config']): ((ev: InspectionEvent) => void) | undefined {
  const tracing = options.keepTrace || recordsRead(config);
  // Nothing reads a trace and no span records (most production runs): no observer, and xstate builds no inspection events.
  if (!tracing && !options.span) return undefined;
  return observeRun({ trace: tracing ? trace : undefined, span: options.span });
}

/** How a settled machine ended, for its span: its kind, and the error of a failure or a refusal. */
export function settlementOutcome(settled: Settlement): { outcome: string; error?: AuthError } {
  return { outcome: settled.kind, error: settled.kind === 'failed' || settled.kind === 'refused' ? settled.error : undefined };
}

/**
 * {@link settleMachine} for a machine that runs on its own, not as a stage of a sign-in (the provider-token refresh,
 * provider logout, back-channel logout): a flow span of its own when a tracer provider records, as every flow run is.
 *
 * @example
 * const settled = await settleOwnMachine('github', tokenRefreshMachine, { deps }, { type: 'ACCESS_TOKEN' }, undefined, [], [])
 */
export function settleOwnMachine(provider: string, ...args: Parameters<typeof settleMachine>): Promise<Settlement> {
  const [machine, input, event, paused, trace, emitted, options = {}] = args;
  return inFlowSpan(provider, machine.id, undefined, (span) => settleMachine(machine, input, event, paused, trace, emitted, span ? { ...options, span } : options), settlementOutcome);
}

/**
 * An actor restored at `snapshot`, whose context gets `deps` only once the actor exists. Restoring walks the whole
 * context, every nested object, looking for actor references to revive; deps (the request, the configuration with
 * its providers and adapter) would make that walk the largest part of a resume. When the restored context is not the
 * object handed in (another xstate), the actor is restored again with deps in its context, as before.
 */
function restoredActor(
  machine: AnyStateMachine,
  snapshot: AnyMachineSnapshot,
  context: Record<string, unknown>,
  deps: unknown,
  options: Parameters<typeof createActor>[1] & object,
) {
  const actor = createActor(machine, { ...options, snapshot: snapshot as never });
  if (actor.getSnapshot().context === context) {
    context.deps = deps;
    return actor;
  }
  return createActor(machine, { ...options, snapshot: machine.resolveState({ value: snapshot.value, context: { ...context, deps } }) as never });
}

/**
 * Creates (or restores) an actor of `machine`, sends `event`, waits until it settles and collects the events it
 * emitted. Never throws: a broken restore, a thrown actor or a machine that never settles is a failed settlement.
 */
export async function settleMachine(
  machine: AnyStateMachine,
  input: Record<string, unknown> & { deps: Pick<FlowDeps, 'req'> },
  event: EventObject,
  paused: PausedFlow | undefined,
  trace: TraceEntry[],
  emitted: EventObject[],
  options: RunOptions = {},
): Promise<Settlement> {
  let snapshot: AnyMachineSnapshot | undefined;
  // A paused flow's context, without deps until its actor exists (see restoredActor).
  const restored = paused ? { ...paused.context } : undefined;
  if (paused) {
    try {
      snapshot = machine.resolveState({ value: paused.value, context: restored }) as AnyMachineSnapshot;
    } catch (err) {
      return { kind: 'failed', error: new InvalidCheck('The flow cookie holds a state this flow does not have.', { err: err as Error, actual: paused.value }), state: '' };
    }
    if (!snapshot.hasTag(AWAITING)) return { kind: 'failed', error: new InvalidCheck('The flow cookie holds a state that cannot be resumed.', { actual: paused.value }), state: statePath(snapshot.value) };
  }
  const settleTimeoutMs = options.settleTimeoutMs ?? SETTLE_TIMEOUT_MS;
  const actorOptions = { input, inspect: inspectorOf(trace, options, input.deps.req.config) };
  const actor = snapshot ? restoredActor(machine, snapshot, restored!, input.deps, actorOptions) : createActor(machine, actorOptions);
  const current = actor.getSnapshot() as AnyMachineSnapshot;
  // A snapshot that failed to restore (status `error`) settles as a failure below, like any thrown actor.
  if (snapshot && current.status === 'active' && !current.can(event)) {
    const state = statePath(snapshot.value);
    return { kind: 'refused', error: new InvalidRequest(`The flow is not waiting for "${event.type}".`, { state, event: event.type }), state };
  }
  const sub = actor.on('*', (ev: EventObject) => emitted.push(ev));
  let timer: NodeJS.Timeout | undefined;
  let observer: { unsubscribe(): void } | undefined;
  let problem: string | undefined;
  let settled: AnyMachineSnapshot;
  try {
    settled = await new Promise<AnyMachineSnapshot>((resolve) => {
      let armed = false;
      // The error observer is what keeps xstate from rethrowing as an uncaught exception.
      observer = actor.subscribe({
        next: (s) => {
          if (armed && isSettled(s as AnyMachineSnapshot)) resolve(s as AnyMachineSnapshot);
        },
        error: () => resolve(actor.getSnapshot() as AnyMachineSnapshot),
      });
      timer = setTimeout(() => {
        problem = `The flow did not settle within ${settleTimeoutMs} ms.`;
        resolve(actor.getSnapshot() as AnyMachineSnapshot);
      }, settleTimeoutMs);
      actor.start();
      armed = true;
      actor.send(event);
      const after = actor.getSnapshot() as AnyMachineSnapshot;
      if (isSettled(after)) resolve(after);
      // Nothing running and nowhere to wait: the machine ignored the event.
      else if (after.status === 'active' && Object.keys(after.children).length === 0) {
        problem = `The flow ignored "${event.type}" in ${statePath(after.value)}.`;
        resolve(after);
      }
    });
  } finally {
    clearTimeout(timer);
    observer?.unsubscribe();
    sub.unsubscribe();
    actor.stop();
  }
  // English (every message id) loads with the first form a flow shows, the page that renders it needing it anyway.
  return settlementOf(machine, settled, trace, problem, event.type, showsForm(settled) ? await englishMessages() : undefined);
}

/** Sends what a flow emitted to the user's event handlers (a throwing handler is logged as EventError). */
export async function dispatchEmitted(deps: Pick<FlowDeps, 'req'>, emitted: EventObject[]): Promise<void> {
  const { config } = deps.req;
  for (const ev of emitted) {
    if (isEventName(ev.type)) {
      const { type, ...message } = ev;
      await dispatchEvent(config.events, config.logger, type, message);
    }
  }
}

/** Checks the output of a finished flow; a custom machine's output is untrusted until it has the right shape. */
export function outputOf(value: unknown, deps: FlowDeps): FlowOutput | undefined {
  const out = value as FlowOutput | undefined;
  if (!out || typeof out !== 'object') return undefined;
  if (out.outcome === 'redirected') return typeof out.url === 'string' && out.url ? out : undefined;
  if (out.outcome !== 'authenticated') return undefined;
  const { user, account } = out;
  if (!user || typeof user !== 'object' || !account || typeof account !== 'object') return undefined;
  if (typeof account.providerAccountId !== 'string' || !account.providerAccountId || typeof account.type !== 'string') return undefined;
  // An existing user is named by a plain id; anything else (`false`, a string) is a malformed output, not "new user".
  if (out.existingUser !== undefined && (out.existingUser !== true || typeof user.id !== 'string' || user.id === '' || user.id.length > 255)) return undefined;
  // amr: known method names only, at least one; an unknown one fails the flow rather than being dropped in silence.
  if (out.amr !== undefined && (!Array.isArray(out.amr) || out.amr.length === 0 || out.amr.length > 5 || knownMethods(out.amr).length !== new Set(out.amr).size)) return undefined;
  if (out.spend !== undefined && !isTokenSpend(out.spend)) return undefined;
  // The account is always this provider's: a flow cannot sign someone in as another provider's account.
  return { ...out, account: { ...account, provider: deps.provider.id } };
}

