// The only code that drives a flow machine: restore -> send -> settle -> persist.
// A run ends settled: in a final state (its outcome), or paused in an `awaiting` state (a snapshot
// to seal into the flow cookie). Errors inside the actor never escape; they become AuthErrors.
import { createActor, type AnyActorRef, type AnyMachineSnapshot, type AnyStateMachine, type EventObject, type StateValue } from 'xstate';
import { AdapterError, AuthError, CallbackRouteError, CredentialsSignin, errorClassesByType, InvalidCheck } from '../core/errors.js';
import { dispatchEvent, isEventName } from '../core/events.js';
import type { Account, Profile, User } from '../core/types.js';
import type { FlowDefinition, FlowEntry, FlowResponse } from './contract.js';
import type { FinalMeta, FlowContextBase } from './context.js';
import { AWAITING_TAG, stateId, stateNodes, traceEntriesFromMicrostep, type TraceEntry } from '../devtools/graph.js';
import { withImplementations } from './provided.js';
import type { FlowServices } from './services.js';
import { completeFlow } from '../flows/runtime/log.js';
import { flowRecord, isFlowId, newFlowId, type FlowRecord } from '../flows/runtime/record.js';

/** A paused machine as the flow cookie carries it. */
export interface PausedFlow {
  value: StateValue;
  context: Record<string, unknown>;
}

/** How a run settled, before it is recorded. */
type SettledFlow =
  | { status: 'signedIn'; redirect: string; user: User; account: Account | null; profile?: Profile; isNewUser?: boolean; trace: TraceEntry[] }
  | { status: 'redirected'; url: string; trace: TraceEntry[] }
  | { status: 'failed'; error: AuthError; state?: string; trace: TraceEntry[] }
  | { status: 'paused'; paused: PausedFlow; response: FlowResponse; trace: TraceEntry[] };

/** How a run ended, with its record (trace.ts), already logged and kept by the time runFlow returns. */
export type FlowResult = SettledFlow & { record: FlowRecord };

/**
 * The context key that carries the flow id across a pause, so the runs of one sign-in share one id. It rides
 * in the sealed flow cookie with the rest of the context; the machines never read it.
 */
export const FLOW_ID_KEY = 'flowId';

/** How long one request may wait for a flow to settle before giving up. */
export const SETTLE_TIMEOUT_MS = 30_000;

export interface RunFlowOptions {
  /** Overrides SETTLE_TIMEOUT_MS (tests use a short one). */
  settleTimeoutMs?: number;
  /** The opaque id of the browser running this request, for the development flow log (see trace-log.ts). */
  browser?: string;
}

const awaitingInvokes = new WeakMap<AnyStateMachine, string[]>();

/**
 * The awaiting states of a machine that invoke something. Such a machine breaks the contract: its snapshot
 * would be persisted while the invoked actor runs, and the restored flow would never see that actor finish.
 */
function invokingAwaitingStates(machine: AnyStateMachine): string[] {
  let found = awaitingInvokes.get(machine);
  if (!found) {
    found = stateNodes(machine).filter((node) => node.tags.includes(AWAITING_TAG) && node.invoke.length > 0).map(stateId);
    awaitingInvokes.set(machine, found);
  }
  return found;
}

function leafPath(snapshot: AnyMachineSnapshot): string {
  const leaves = snapshot._nodes.filter((n) => n.type === 'atomic' || n.type === 'final');
  return leaves.map((n) => n.path.join('.')).join(',');
}

function finalLeafMeta(snapshot: AnyMachineSnapshot): FinalMeta | undefined {
  const leaf = snapshot._nodes.find((n) => n.type === 'final');
  return leaf ? ((leaf.meta ?? {}) as FinalMeta) : undefined;
}

function isSettled(snapshot: AnyMachineSnapshot): boolean {
  return snapshot.status !== 'active' || snapshot.hasTag('awaiting') || finalLeafMeta(snapshot) !== undefined;
}

/** Builds the typed error a failure state names, with the evidence the machine recorded. */
function errorFromState(type: string, context: FlowContextBase, state: string, event: string | undefined): AuthError {
  const Cls = errorClassesByType.get(type) ?? CallbackRouteError;
  const f = context.failure ?? {};
  // A database failure is reported as itself (AdapterError), not as the generic catch-all state that caught it.
  if (f.err instanceof AuthError && (f.err.type === type || (f.err instanceof AdapterError && Cls === CallbackRouteError))) {
    f.err.cause = { ...f.err.cause, state, event };
    return f.err;
  }
  const error = new Cls(f.message ?? type, { ...(f.err instanceof Error ? { err: f.err } : {}), state, event, expected: f.expected, actual: f.actual });
  if (error instanceof CredentialsSignin && f.code) error.code = f.code;
  return error;
}

function outcomeOf(snapshot: AnyMachineSnapshot, trace: TraceEntry[]): SettledFlow {
  const context = snapshot.context as FlowContextBase;
  const state = leafPath(snapshot);
  const lastEvent = trace.at(-1)?.event;
  if (snapshot.status === 'error') {
    return { status: 'failed', error: new CallbackRouteError(snapshot.error instanceof Error ? snapshot.error : String(snapshot.error), { state, event: lastEvent }), state, trace };
  }
  if (snapshot.status === 'active' && snapshot.hasTag('awaiting')) {
    const { response, failure: _failure, ...rest } = context as FlowContextBase & Record<string, unknown>;
    if (!response) return { status: 'failed', error: new CallbackRouteError('A paused flow gave no response.', { state }), state, trace };
    return { status: 'paused', paused: { value: snapshot.value, context: rest }, response, trace };
  }
  const meta = finalLeafMeta(snapshot);
  if (meta && 'error' in meta) return { status: 'failed', error: errorFromState(meta.error, context, state, lastEvent), state, trace };
  if (meta && meta.outcome === 'redirected' && context.redirectTo) return { status: 'redirected', url: context.redirectTo, trace };
  if (meta && meta.outcome === 'signedIn' && context.user) {
    return { status: 'signedIn', redirect: context.redirectTo ?? context.callbackUrl, user: context.user, account: context.account ?? null, profile: context.profile, isNewUser: context.isNewUser, trace };
  }
  return { status: 'failed', error: new CallbackRouteError('The flow ended without an outcome.', { state }), state, trace };
}

function asError(snapshot: AnyMachineSnapshot, message: string): AnyMachineSnapshot {
  return { ...snapshot, status: 'error', error: new Error(message), _nodes: snapshot._nodes, hasTag: snapshot.hasTag.bind(snapshot) } as AnyMachineSnapshot;
}

/**
 * Runs one request's worth of a flow: starts a fresh actor (or restores `paused`), sends the
 * entry event, waits until the machine settles, and dispatches the events it emitted. Every run is
 * recorded (trace.ts): logged when debug output is wanted, kept for the inspector in development.
 *
 * @example
 * const result = await runFlow(credentialsFlow, services, { resume: false, event: { type: 'SUBMIT', credentials } })
 */
export async function runFlow(flow: FlowDefinition, services: FlowServices, entry: FlowEntry, paused?: PausedFlow, options: RunFlowOptions = {}): Promise<FlowResult> {
  const startedAt = Date.now();
  const clock = performance.now();
  const carried = paused?.context[FLOW_ID_KEY];
  const id = isFlowId(carried) ? carried : newFlowId();
  const result = await settleFlow(flow, services, entry, paused, options);
  if (result.status === 'paused') result.paused.context[FLOW_ID_KEY] = id;
  const record = flowRecord({
    id,
    provider: services.provider.id,
    machine: flow.machine.id,
    startedAt,
    durationMs: performance.now() - clock,
    status: result.status,
    trace: result.trace,
    error: result.status === 'failed' ? result.error : undefined,
  });
  completeFlow(services.req.config, record, flow.machine, options.browser);
  return { ...result, record };
}

async function settleFlow(flow: FlowDefinition, services: FlowServices, entry: FlowEntry, paused: PausedFlow | undefined, options: RunFlowOptions): Promise<SettledFlow> {
  const trace: TraceEntry[] = [];
  const emitted: EventObject[] = [];
  const settleTimeoutMs = options.settleTimeoutMs ?? SETTLE_TIMEOUT_MS;
  const invoking = invokingAwaitingStates(flow.machine);
  if (invoking.length > 0) {
    return { status: 'failed', error: new CallbackRouteError(`The "${flow.machine.id}" machine invokes actors in awaiting states, which cannot be persisted.`, { actual: invoking }), trace };
  }
  return withImplementations(flow, flow.implement(services), (machine) => driveFlow(machine, flow, services, entry, paused, settleTimeoutMs, trace, emitted));
}

async function driveFlow(
  machine: AnyStateMachine,
  flow: FlowDefinition,
  services: FlowServices,
  entry: FlowEntry,
  paused: PausedFlow | undefined,
  settleTimeoutMs: number,
  trace: TraceEntry[],
  emitted: EventObject[],
): Promise<SettledFlow> {
  let snapshot: AnyMachineSnapshot | undefined;
  if (paused) {
    try {
      snapshot = machine.resolveState({ value: paused.value, context: paused.context }) as AnyMachineSnapshot;
    } catch (err) {
      return { status: 'failed', error: new InvalidCheck('The flow cookie holds a state this flow does not have.', { err: err as Error, actual: paused.value }), trace };
    }
    if (!snapshot.hasTag('awaiting')) return { status: 'failed', error: new InvalidCheck('The flow cookie holds a state that cannot be resumed.', { actual: paused.value }), trace };
    if (!snapshot.can(entry.event)) {
      return { status: 'failed', error: new InvalidCheck(`The flow is not waiting for "${entry.event.type}".`, { state: leafPath(snapshot), event: entry.event.type }), trace };
    }
  }
  const actor = createActor(machine, {
    input: flow.input(services) as never,
    snapshot: snapshot as never,
    inspect: (ev) => {
      if (ev.type === '@xstate.microstep' && ev.actorRef === actorRef) trace.push(...traceEntriesFromMicrostep(ev));
    },
  });
  const actorRef: AnyActorRef = actor;
  const sub = actor.on('*', (ev: EventObject) => emitted.push(ev));
  let settled: AnyMachineSnapshot;
  let timer: NodeJS.Timeout | undefined;
  let observer: { unsubscribe(): void } | undefined;
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
      timer = setTimeout(() => resolve(asError(actor.getSnapshot() as AnyMachineSnapshot, `The flow did not settle within ${settleTimeoutMs} ms.`)), settleTimeoutMs);
      actor.start();
      armed = true;
      actor.send(entry.event);
      const after = actor.getSnapshot() as AnyMachineSnapshot;
      if (isSettled(after)) resolve(after);
      // Nothing running and nowhere to wait: the machine ignored the event.
      else if (after.status === 'active' && Object.keys(after.children).length === 0) resolve(asError(after, `The flow ignored "${entry.event.type}" in ${leafPath(after)}.`));
    });
  } finally {
    clearTimeout(timer);
    observer?.unsubscribe();
    sub.unsubscribe();
    actor.stop();
  }
  const result = outcomeOf(settled, trace);
  const { config } = services.req;
  for (const ev of emitted) {
    if (isEventName(ev.type)) {
      const { type, ...message } = ev;
      await dispatchEvent(config.events, config.logger, type, message);
    }
  }
  return result;
}
