// The account flow contract: a machine an anonymous visitor runs for a provider that does not end in that provider's
// callback (sign-up, recovery), the way Kratos runs its registration and recovery flows. It keeps its paused state in
// a cookie slot of its own, and ends by signing in a user it proved (handed to the standard sign-in stages exactly as
// a provider's proof is) or by sending the browser elsewhere (through the redirect callback).
import type { AnyStateMachine } from 'xstate';
import { InvalidProvider } from '../../core/errors.js';
import type { AuthMethod, User } from '../../core/types.js';
import { checkFailureMeta } from './failure-meta.js';
import { invokingAwaitingStates, type FlowDeps, type FlowEntry } from './contract.js';

/**
 * How a request reaches an account flow: `submit` is `POST {basePath}/{flow id}/:provider` (CSRF-checked: a form the
 * browser fills in, or the answer to a paused step); `link` is `GET {basePath}/{flow id}/:provider` with a query, a
 * link from a mail opened in any browser (it may carry no flow cookie at all).
 */
export type AccountRoute = 'submit' | 'link';

/**
 * How an account flow ends well, as its machine's `output`. `signIn`: the flow proved who `user` is (it exists:
 * `user.id` is looked up); the runtime hands it to the standard sign-in stages (signIn callback, second factor,
 * session, events) as a proof of the provider's. `created`: the flow made this user just now (the `createUser` event
 * goes out, and the sign-in counts as a new user's). `redirected`: the browser goes to `url`, through the `redirect`
 * callback.
 */
export type AccountOutput =
  | { outcome: 'signIn'; user: User & { id: string }; created?: boolean; amr?: AuthMethod[] }
  | { outcome: 'redirected'; url: string };

/**
 * An account flow, built in (sign-up) for a provider that allows it. Internal: apps write sign-in flows
 * (`defineFlow`) and signed-in flows (`defineSignedInFlow`).
 */
export interface AccountFlowDefinition<TMachine extends AnyStateMachine = AnyStateMachine> {
  /** The flow's name in its routes (`{basePath}/{id}/:provider`), its cookie slot and its store namespace. */
  id: string;
  machine: TMachine;
  /** Bump when a change makes old paused snapshots meaningless; a cookie of another version is an InvalidCheck. */
  version: number;
  /** Extra input for a fresh actor, beside the input every flow gets (`deps`, `callbackUrl`, `providerId`, `startedAt`). */
  input?(deps: FlowDeps): Record<string, unknown>;
  /** Maps a request to its entry, or null when the flow does not take it. `paused`: the browser sent this flow's cookie. */
  entry(route: AccountRoute, deps: FlowDeps, paused: boolean): FlowEntry | null;
}

const defined = new WeakSet<object>();
const FLOW_ID = /^[a-z][a-z0-9-]{0,31}$/;

/**
 * Declares an account flow, checked as `defineFlow` checks a sign-in flow: an id fit for a route, a version, no
 * awaiting state that invokes an actor, and failure states that name known error types.
 *
 * @example
 * export const signUpFlow = defineAccountFlow({ id: 'signup', machine, version: 1, entry: (route) => route === 'submit' ? { resume: false, event: { type: 'SUBMIT' } } : null })
 */
export function defineAccountFlow<TMachine extends AnyStateMachine>(definition: AccountFlowDefinition<TMachine>): AccountFlowDefinition<TMachine> {
  const { id, machine, version } = definition;
  if (typeof id !== 'string' || !FLOW_ID.test(id)) throw new InvalidProvider(`An account flow needs an \`id\` of lower-case letters, digits and "-" (got ${JSON.stringify(id)}).`);
  if (!machine || typeof machine.resolveState !== 'function') throw new InvalidProvider(`Account flow "${id}" needs an XState machine.`);
  if (!Number.isInteger(version) || version < 1) throw new InvalidProvider(`Account flow "${id}" needs a positive integer \`version\`.`);
  const invoking = invokingAwaitingStates(machine);
  if (invoking.length > 0) throw new InvalidProvider(`Account flow "${id}" invokes actors in awaiting states (${invoking.join(', ')}), which cannot be persisted.`);
  checkFailureMeta(machine, `Account flow "${id}"`);
  const flow = Object.freeze({ ...definition });
  defined.add(flow);
  return flow;
}

/** Whether a value was made by {@link defineAccountFlow}. */
export function isAccountFlow(value: unknown): value is AccountFlowDefinition {
  return typeof value === 'object' && value !== null && defined.has(value);
}

/** Checks a finished account flow's output: anything but these two shapes is no outcome. */
export function accountOutputOf(value: unknown): AccountOutput | undefined {
  const out = value as AccountOutput | undefined;
  if (!out || typeof out !== 'object') return undefined;
  if (out.outcome === 'redirected') return typeof out.url === 'string' && out.url ? out : undefined;
  if (out.outcome !== 'signIn') return undefined;
  const { user } = out;
  if (!user || typeof user !== 'object' || typeof user.id !== 'string' || user.id === '' || user.id.length > 255) return undefined;
  if (out.created !== undefined && typeof out.created !== 'boolean') return undefined;
  if (out.amr !== undefined && (!Array.isArray(out.amr) || out.amr.length === 0 || out.amr.length > 5)) return undefined;
  return out;
}
