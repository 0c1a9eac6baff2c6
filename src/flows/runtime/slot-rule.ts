// The one rule for a flow cookie after a run: a paused state is single-use, so whatever happened it is spent, except
// where the run spent nothing. A refused event ran nothing; a fresh start that failed left the paused flow alone (a
// "send a new code" refused by the cooldown keeps the first code); an outage rolled back (the browser can send the
// same answer again). What pauses again is sealed anew by the door, in whichever slot it paused.
import { ServiceUnavailable, type AuthError } from '../../core/errors.js';
import type { RequestContext } from '../../core/request-context.js';
import { clearFlow, type FlowSlot } from './cookie.js';

/** What the rule reads of a run's result. */
interface RunEnd {
  status: string;
  error?: AuthError;
}

/** Whether a run that ended this way left the paused state in `slot` unspent. */
export function spentNothing(result: RunEnd, resumed: boolean): boolean {
  if (result.status === 'refused') return true;
  return result.status === 'failed' && (!resumed || result.error instanceof ServiceUnavailable);
}

/**
 * Clears `slot` unless the run spent nothing. Only this slot is touched: another provider's paused flow (another
 * tab) is left alone.
 *
 * @example
 * slotAfter(req, { provider: 'github' }, result, { resumed: entry.resume })
 */
export function slotAfter(req: RequestContext, slot: FlowSlot, result: RunEnd, run: { resumed: boolean }): void {
  if (!spentNothing(result, run.resumed)) clearFlow(req, slot);
}
