// Second factors as stored data: what a factor row holds, the adapter methods that keep them (an authchart
// extension of the Auth.js contract), and the `secondFactor` option. The stage that checks them is flows/second-factor/.
import type { Awaitable, User } from './types.js';
import type { Account } from './types.js';

/** `totp`: an authenticator app (RFC 6238); `backup`: one single-use recovery code (stored hashed). */
export type FactorKind = 'totp' | 'backup';

/** A second factor as the adapter stores it. */
export interface AdapterFactor {
  id: string;
  userId: string;
  kind: FactorKind;
  /** TOTP: the key, encrypted with a key derived from the auth secret. Backup code: SHA-256 of the code. */
  secret: string;
  label?: string | null;
  createdAt: Date;
  /** When enrolment was confirmed with a first code; `null` while it waits for one (not yet a factor). */
  activatedAt: Date | null;
  /** TOTP: the last time step accepted, so a code is never accepted twice. */
  lastStep?: number | null;
}

/**
 * Adapter methods for second factors. All are required once `secondFactor` is configured (checked at start). Each
 * must be atomic where it says so: they are what makes a code single-use and the attempt count hold under races.
 */
export interface FactorAdapterMethods {
  createFactor(factor: AdapterFactor): Awaitable<AdapterFactor>;
  /** The user's factors, active or waiting for confirmation. */
  listFactors(userId: string): Awaitable<AdapterFactor[]>;
  /** Marks a factor of this user active; `null` when there is none with this id. */
  activateFactor(params: { id: string; userId: string; activatedAt: Date }): Awaitable<AdapterFactor | null>;
  /** Deletes a factor of this user (all backup codes when `kind: 'backup'` is given instead of an id). */
  deleteFactors(params: { userId: string; id?: string; kind?: FactorKind }): Awaitable<number>;
  /** Atomic: moves a TOTP factor's last accepted step to `step` only if it is newer; false for a replayed code. */
  advanceFactorStep(params: { id: string; step: number }): Awaitable<boolean>;
  /** Atomic: deletes and reports one active backup code of the user with this hash; false when none matches. */
  useBackupCode(params: { userId: string; secret: string }): Awaitable<boolean>;
  /**
   * Atomic: counts one failed attempt at the pending sign-in `id` (created on first use, kept until `expires`) and
   * returns the count so far; a challenge already passed counts as spent (returns `Infinity`).
   */
  failFactorChallenge(params: { id: string; expires: Date }): Awaitable<number>;
  /** Atomic: marks the pending sign-in `id` passed; false when it was passed before or has too many failures. */
  passFactorChallenge(params: { id: string; expires: Date; maxFailures: number }): Awaitable<boolean>;
}

/** Names of {@link FactorAdapterMethods}, for the start-up check. */
export const factorAdapterMethods = [
  'createFactor',
  'listFactors',
  'activateFactor',
  'deleteFactors',
  'advanceFactorStep',
  'useBackupCode',
  'failFactorChallenge',
  'passFactorChallenge',
] as const satisfies readonly (keyof FactorAdapterMethods)[];

/** The `secondFactor` option. */
export interface SecondFactorOptions {
  /** The issuer shown in authenticator apps (`otpauth://totp/<issuer>:<address>`). Default: `authchart`. */
  issuer?: string;
  /**
   * Whether this sign-in needs a second factor even if the user has none yet: then the stage enrols one (an
   * authenticator app, confirmed with a first code) before the session. A user with an active factor always
   * passes the stage, whatever this says.
   */
  require?: boolean | ((params: { user: User; account: Account }) => Awaitable<boolean>);
  /** Wrong codes before a pending sign-in dies. Default 5. */
  maxAttempts?: number;
}
