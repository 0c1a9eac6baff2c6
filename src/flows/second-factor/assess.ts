// What the second-factor machine decides on, loaded at its start: the user, their factors, whether the sign-in must
// enrol one (the `require` option), and whether a passkey may answer the check.
import type { Account, User } from '../../core/types.js';
import type { FlowDeps } from '../runtime/contract.js';
import { factorSummary, type FactorSummary } from './account.js';
import { passkeyOffered } from './passkey.js';

/** What the machine decides on: the user, their factors, whether one must be enrolled, whether a passkey is offered. */
export interface FactorState {
  user: User;
  factors: FactorSummary[];
  /** A sign-in of a user without an active factor whom the `require` option asks to enrol one. */
  required: boolean;
  /** The user can answer the check with a passkey instead of a code. */
  passkey: boolean;
}

/**
 * Loads what the user has. `require` is asked only at a sign-in of a user without an active factor; a passkey is
 * offered when the user has one, unless it was also the first factor (the same authenticator twice is one factor).
 */
export async function assessFactors(
  deps: Pick<FlowDeps, 'req'>,
  params: { purpose: string; userId: string; user?: User; account?: Account },
): Promise<FactorState> {
  // Checked at start (MissingAdapterMethods): `secondFactor` needs an adapter with the factor methods.
  const adapter = deps.req.config.adapter;
  if (!adapter) throw new Error('Second factors need an adapter.');
  const [stored, rows] = await Promise.all([params.user ? null : adapter.getUser(params.userId), adapter.listFactors(params.userId)]);
  const user = params.user ?? stored ?? { id: params.userId };
  const factors = rows.map(factorSummary);
  const active = factors.some((f) => f.activatedAt !== null);
  const options = deps.req.config.secondFactor;
  const require = options?.require;
  const required = params.purpose === 'signIn' && !active && params.account !== undefined && (typeof require === 'function' ? await require({ user, account: params.account }) : require === true);
  const passkey = active && (await passkeyOffered(deps, params.userId, params.account));
  return { user, factors, required, passkey };
}
