// What a step through the door answers (one typed shape for every kind of machine), and the two ways a run becomes
// an answer: sealed where it paused, or as it ended.
import { CallbackRouteError, type AuthError } from '../../core/errors.js';
import type { RequestContext } from '../../core/request-context.js';
import { sealFlow, type FlowSlot, type PausedFlow, type PausedPage } from './cookie.js';
import type { FlowResponse, FlowRoute } from './contract.js';
import type { FlowResult } from './flow.js';
import type { FlowRecord } from './record.js';
import type { StageOutput } from './stage.js';
import type { TraceEntry } from './trace.js';

/** How a step ended, for the HTTP layer to answer. */
export type DoorAnswer =
  /** Paused: `response` is what it shows; `slot` names it for `GET flow/:slot`; the form posts to `{basePath}/{action}`. */
  | { status: 'paused'; response: FlowResponse; slot: string; action: string }
  | { status: 'signedIn'; redirect: string; isNewUser: boolean }
  | { status: 'redirected'; url: string }
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

/** The public name of a slot in `GET {basePath}/flow/:slot`, and where its form posts (below basePath). */
export function slotNames(slot: FlowSlot): { slot: string; action: string } {
  if ('provider' in slot) return { slot: slot.provider, action: `callback/${encodeURIComponent(slot.provider)}` };
  if ('stage' in slot) return { slot: slot.stage, action: slot.stage };
  if ('signedIn' in slot) return { slot: `signed-in.${slot.signedIn}`, action: `flows/${encodeURIComponent(slot.signedIn)}` };
  return { slot: '', action: '' };
}

// The carried page rides in the flow cookie, and a browser drops a cookie above 4096 bytes, losing the flow with
// it. A page above this size in bytes (the enrolment page's QR code is ~3 kB) is not carried: its flow goes on as
// before, and `GET {basePath}/flow/:slot` answers that this flow shows no page.
const CARRIED_PAGE_LIMIT = 1024;
const utf8 = new TextEncoder();

/** Seals a paused machine in `slot`, with the small page it shows kept beside it, and answers what it shows. */
export function pausedIn(req: RequestContext, slot: FlowSlot, flow: { machine: { id: string }; version: number }, paused: PausedFlow, response: FlowResponse): DoorAnswer {
  if (response.kind === 'page' && utf8.encode(JSON.stringify(response)).length <= CARRIED_PAGE_LIMIT) paused.pause = { ...paused.pause, page: response as PausedPage };
  sealFlow(req, slot, flow, paused, { crossSitePost: response.kind === 'redirect' && response.crossSitePost === true });
  return { status: 'paused', response, ...slotNames(slot) };
}

/** A run's result as the door answers it (a pause is sealed by the caller, which knows the slot). */
export function ended(result: FlowResult, link: boolean): DoorAnswer {
  switch (result.status) {
    case 'signedIn':
      return { status: 'signedIn', redirect: result.redirect, isNewUser: result.isNewUser === true };
    case 'redirected':
      return { status: 'redirected', url: result.url };
    case 'refused':
      return { status: 'refused', error: result.error };
    case 'failed':
      return { status: 'failed', error: result.error, record: result.record, ...(link ? { link: true } : {}) };
    default:
      return { status: 'failed', error: new CallbackRouteError(`A run ended as ${result.status} where it cannot.`), record: result.record };
  }
}


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
