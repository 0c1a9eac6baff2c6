// What a step through the runtime's door answers: one typed shape for every kind of machine, which the HTTP layer
// turns into a response. Types only.
import type { AuthError } from '../../core/errors.js';
import type { FlowResponse, FlowRoute } from './contract.js';
import type { FlowRecord } from './record.js';
import type { StageOutput } from './stage.js';
import type { TraceEntry } from './trace.js';

/** How a step ended, for the HTTP layer to answer. */
export type DoorAnswer =
  /** Paused: `response` is what it shows; `slot` names it for `GET flow/:slot`; the form posts to `{basePath}/{action}`. */
  | { status: 'paused'; response: FlowResponse; slot: string; action: string }
  | { status: 'signedIn'; redirect: string; isNewUser: boolean }
  /** `session`: a signed-in flow's outcome rewrote the user's own session cookie (a passed check, the other sessions ended), which stands. */
  | { status: 'redirected'; url: string; session?: 'rewritten' }
  /** A signed-in user's second-factor check ended (already recorded in their session). */
  | { status: 'assured'; output: StageOutput }
  /** The paused machine does not take this request: nothing ran, the paused flow stands. */
  | { status: 'refused'; error: AuthError }
  /** `link`: a link that failed (the account page says why); `record`: the run's record, for the inspector. */
  | { status: 'failed'; error: AuthError; record?: FlowRecord; link?: boolean; typed?: boolean; state?: string }
  /** Nobody is signed in (`signedOut`), or the session is below the level the door asks for (`stale`). */
  | { status: 'signedOut' | 'stale'; callbackUrl: string }
  /** The flow takes no request like this one. */
  | { status: 'notTaken'; route?: FlowRoute }
  /** A limit refused the request before anything ran: its answer, as the limit made it. */
  | { status: 'limited'; reply: unknown }
  /** A job ended: its output. */
  | { status: 'done'; output: unknown; state: string };

/** Options of a step. */
export interface StepOptions {
  /**
   * The id the development inspector files this browser's runs under, asked once the door knows whether the run
   * starts a flow (`fresh`: one may be minted) or resumes one.
   */
  browser?: (fresh: boolean) => string | undefined;
  /** Receives each run's trace, recorded even when the configuration keeps no records (testFlow's coverage). */
  observe?: (trace: TraceEntry[]) => void;
}
