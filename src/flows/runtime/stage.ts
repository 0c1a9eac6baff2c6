// The stage contract: a machine the runtime runs after a proven first factor, or for a signed-in user, under a name
// of its own (its cookie slot, its span, its route and its diagram all say that name). Not a provider's flow: it has no
// provider, no sign-in routes and no deps beyond the request. Its input, start event and output are typed here.
import type { AnyStateMachine, EventObject } from 'xstate';
import { InvalidProvider } from '../../core/errors.js';
import type { RequestContext } from '../../core/request-context.js';
import type { Account, User } from '../../core/types.js';
import type { SessionLevel } from '../../session/gate.js';

/** What a stage machine is created with. */
export interface StageInput {
  deps: { req: RequestContext };
  /** Where the browser goes when the stage ends well. */
  callbackUrl: string;
}

/** Why a stage runs: a sign-in that may need a second factor, or a signed-in user's request. */
export type StagePurpose = 'signIn' | 'stepUp' | 'enrolTotp' | 'backupCodes' | 'remove';

/** The event that starts a stage. */
export interface StageStart {
  type: 'START';
  purpose: StagePurpose;
  /** The user this is for: the one the sign-in resolved, or the signed-in session's. */
  userId: string;
  /** Sign-in: the resolved user and the account that proved the first factor. */
  user?: User;
  account?: Account;
  /** A signed-in user's request: when their session was last verified (ms), as the session gate read it. */
  verifiedAt?: number;
  /**
   * The level a signed-in user's change of factors needs, in the session gate's words: a verification within
   * `maxAge` seconds counts as fresh enough to change factors without typing another code (it may only shorten the
   * stage's own window, never lengthen it).
   */
  level?: SessionLevel;
  /** `remove`: the factor named. */
  factorId?: string;
}

/** How a factor check passed (`amr`: `otp` for a code or a backup code, `hwk` for a passkey). */
export type FactorMethod = 'otp' | 'backup' | 'passkey';

/**
 * How a stage ends well: `passed` (the level is reached: `method` says how, absent when no factor was asked for;
 * `changed` when the user's factors changed), `codes` (a new set of backup codes, shown once), or `signIn` (a step-up
 * for a user without a factor: a full sign-in instead).
 */
export type StageOutput =
  | { outcome: 'passed'; method?: FactorMethod; changed: boolean; redirect: string }
  | { outcome: 'codes'; codes: string[]; method?: FactorMethod; redirect: string }
  | { outcome: 'signIn'; redirect: string };

/**
 * A stage: its name, machine and version, and how a request answers it while it is paused.
 *
 * @example
 * export const secondFactorStage = defineStage({ name: 'second-factor', machine, version: 2, answer: (req) => req.method === 'POST' ? { type: 'SUBMIT_CODE', code: String(req.body.code ?? '') } : null })
 */
export interface StageDefinition<TMachine extends AnyStateMachine = AnyStateMachine> {
  /** One name everywhere: the slot (`<flow cookie>-<name>`), the span, the route (`{basePath}/<name>`), the diagram. */
  name: 'second-factor';
  machine: TMachine;
  /** Bump when a change makes old paused snapshots meaningless; a cookie of another version is an InvalidCheck. */
  version: number;
  /** The event a paused stage takes from this request, or null when the request is not an answer it takes. */
  answer(req: RequestContext): EventObject | null;
}

/**
 * Declares a stage (see {@link StageDefinition}).
 *
 * @example
 * const stage = defineStage({ name: 'second-factor', machine, version: 1, answer: () => null })
 */
export function defineStage<TMachine extends AnyStateMachine>(definition: StageDefinition<TMachine>): StageDefinition<TMachine> {
  if (!definition.machine?.id) throw new InvalidProvider('A stage needs a machine with an `id`.');
  if (!Number.isInteger(definition.version) || definition.version < 1) throw new InvalidProvider(`Stage "${definition.name}" needs a positive integer \`version\`.`);
  return Object.freeze({ ...definition });
}
