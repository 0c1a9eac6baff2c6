// The signed-in flow contract: a machine an app runs for a user who is already signed in ("confirm your phone
// number", "accept the new terms"), the way Kratos runs its settings flows. It passes the session gate at the level it
// declares on every request, keeps its paused state in a cookie slot of its own bound to that user, and ends by
// asking the runtime for what only the runtime may do: update the user, record a passed check in the session, end the
// user's other sessions.
import type { AnyStateMachine } from 'xstate';
import { InvalidProvider } from '../../core/errors.js';
import type { FlowKeyValueStore } from '../../core/flow-store/scoped.js';
import type { RequestContext } from '../../core/request-context.js';
import type { ActivityKind } from '../../core/activity.js';
import type { AdapterUser, AuthMethod } from '../../core/types.js';
import type { SessionLevel } from '../../session/gate.js';
import { checkFailureMeta } from './failure-meta.js';
import { invokingAwaitingStates, type FlowEntry, type FlowSession } from './contract.js';

/** The routes of a signed-in flow: `POST {basePath}/flows/:id/start` and `GET|POST {basePath}/flows/:id`. */
export type SignedInRoute = 'start' | 'continue';

/** What a signed-in flow's actors work against (`input.deps`, never persisted). */
export interface SignedInDeps {
  /** This request's facts and cookie jar. */
  req: RequestContext;
  /** The signed-in user, read through the session gate at the flow's level. */
  session: FlowSession;
  /** Where the browser goes when the flow ends (the `callbackUrl` it was started with, through the redirect callback). */
  callbackUrl: string;
  /** This flow's part of the flow store (keys namespaced per flow), shared by every instance. */
  store: FlowKeyValueStore;
}

/** The input every signed-in flow machine is created with (plus what the flow's own `input` adds). */
export interface SignedInInput {
  deps: SignedInDeps;
  callbackUrl: string;
  /** The flow's id. */
  flowId: string;
  /** The signed-in user's id. */
  userId: string;
  /** When the flow started (ms): paused flows expire by guard, since `after` timers are not restored. */
  startedAt: number;
}

/** Fields of the user a signed-in flow may change (never the id). */
export type SignedInUserUpdate = Partial<Omit<AdapterUser, 'id'>>;

/**
 * How a signed-in flow ends well, as its machine's `output`. `completed` asks the runtime to apply, in this order:
 * `user` (the adapter's `updateUser` for the signed-in user), `passed` (a check the user just passed, recorded in
 * the session as a fresh verification with that method, as a second-factor check is), `endOtherSessions` (every
 * other session of the user ends), `organization` (made the session's active organization, once the runtime has read
 * the user's membership of it). Then the browser goes to `redirect` (through the `redirect` callback), else the
 * flow's callback URL. `redirected` only sends the browser elsewhere.
 */
export type SignedInOutput =
  | { outcome: 'completed'; user?: SignedInUserUpdate; passed?: AuthMethod; endOtherSessions?: boolean; organization?: string; redirect?: string }
  | { outcome: 'redirected'; url: string };

/**
 * A signed-in flow.
 *
 * @example
 * export const confirmPhone = defineSignedInFlow({ id: 'confirm-phone', machine, version: 1, level: { maxAge: 600 },
 *   entry: (route, deps, paused) => route === 'start' ? { resume: false, event: { type: 'START', phone: String(deps.req.body.phone ?? '') } }
 *     : deps.req.method === 'POST' && paused ? { resume: true, event: { type: 'SUBMIT', code: String(deps.req.body.code ?? '') } } : null })
 */
export interface SignedInFlowDefinition<TMachine extends AnyStateMachine = AnyStateMachine> {
  /** The flow's name in its routes, its cookie slot and its store namespace: `[A-Za-z0-9_-]+`. */
  id: string;
  machine: TMachine;
  /** Bump when a change makes old paused snapshots meaningless; a cookie of another version is an InvalidCheck. */
  version: number;
  /**
   * The session level every request of the flow must meet (the session gate's words): `{ maxAge: 300 }` asks for a
   * sign-in or factor check within five minutes, `{ factors: 2 }` for a session that passed a second factor. Below
   * it, the browser is sent to verify (or sign in) and comes back. Default: any live session.
   */
  level?: SessionLevel;
  /** Extra input for a fresh actor, beside {@link SignedInInput}. */
  input?(deps: SignedInDeps): Record<string, unknown>;
  /** Maps a route to its entry, or null when the request is not one the flow takes (UnknownAction). */
  entry(route: SignedInRoute, deps: SignedInDeps, paused: boolean): FlowEntry | null;
  /**
   * @internal The activity record a completed run leaves (the built-in changes of password and address): written
   * `before` the outcome is applied when the machine itself made the change (a failure applying the rest then leaves
   * the record), `after` it when the outcome is the change.
   */
  completedRecord?: { kind: ActivityKind; method: string; when: 'before' | 'after' };
}

const defined = new WeakSet<object>();
const FLOW_ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Declares a signed-in flow, checked as `defineFlow` checks a sign-in flow: an id fit for a route, a version, no
 * awaiting state that invokes an actor, and failure states that name known error types. Register it in the
 * configuration's `flows`.
 *
 * @example
 * const auth = { providers, adapter, flows: [confirmPhone] }
 */
export function defineSignedInFlow<TMachine extends AnyStateMachine>(definition: SignedInFlowDefinition<TMachine>): SignedInFlowDefinition<TMachine> & { readonly signedIn: true } {
  const { id, machine, version } = definition;
  if (typeof id !== 'string' || !FLOW_ID.test(id)) throw new InvalidProvider(`A signed-in flow needs an \`id\` of letters, digits, "_" and "-" (got ${JSON.stringify(id)}).`);
  if (!machine || typeof machine.resolveState !== 'function') throw new InvalidProvider(`Signed-in flow "${id}" needs an XState machine.`);
  if (!Number.isInteger(version) || version < 1) throw new InvalidProvider(`Signed-in flow "${id}" needs a positive integer \`version\`.`);
  const invoking = invokingAwaitingStates(machine);
  if (invoking.length > 0) throw new InvalidProvider(`Signed-in flow "${id}" invokes actors in awaiting states (${invoking.join(', ')}), which cannot be persisted.`);
  checkFailureMeta(machine, `Signed-in flow "${id}"`);
  const flow = Object.freeze({ ...definition, signedIn: true as const });
  defined.add(flow);
  return flow;
}

/** Whether a value was made by {@link defineSignedInFlow}. */
export function isSignedInFlow(value: unknown): value is SignedInFlowDefinition {
  return typeof value === 'object' && value !== null && defined.has(value);
}

/** Checks a finished signed-in flow's output (a custom machine's output is untrusted until it has this shape). */
export function signedInOutputOf(value: unknown): SignedInOutput | undefined {
  const out = value as SignedInOutput | undefined;
  if (!out || typeof out !== 'object') return undefined;
  if (out.outcome === 'redirected') return typeof out.url === 'string' && out.url ? out : undefined;
  if (out.outcome !== 'completed') return undefined;
  if (out.user !== undefined && (typeof out.user !== 'object' || out.user === null || 'id' in out.user)) return undefined;
  if (out.redirect !== undefined && (typeof out.redirect !== 'string' || !out.redirect)) return undefined;
  if (out.endOtherSessions !== undefined && typeof out.endOtherSessions !== 'boolean') return undefined;
  if (out.organization !== undefined && (typeof out.organization !== 'string' || !out.organization)) return undefined;
  return out;
}
