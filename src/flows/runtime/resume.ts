// Opening a paused flow's slot for the request that resumes it, one way for every door: the sealed state read and
// checked (`check` adds the door's own rule, such as "started by this user"), or, for a cookie that is missing,
// tampered, expired, foreign or of another version, the slot cleared and the refusal recorded as a failed flow.
import type { AnyStateMachine } from 'xstate';
import type { AuthError } from '../../core/errors.js';
import type { RequestContext } from '../../core/request-context.js';
import { clearFlow, openFlow, type FlowSlot, type PausedFlow } from './cookie.js';
import type { DoorAnswer } from './answer.js';
import { recordRejectedFlow } from './log.js';

/**
 * The paused flow in `slot`, or the answer that refuses it (the slot cleared, the refusal recorded under `recordAs`).
 *
 * @example
 * const opened = await openPaused(req, slot, flow, provider.id, browser)
 * if ('refused' in opened) return opened.refused
 */
export async function openPaused(
  req: RequestContext,
  slot: FlowSlot,
  flow: { machine: AnyStateMachine; version: number },
  recordAs: string,
  browser: string | undefined,
  check?: (paused: PausedFlow) => void,
): Promise<{ paused: PausedFlow } | { refused: DoorAnswer }> {
  try {
    const paused = openFlow(req, slot, flow);
    check?.(paused);
    return { paused };
  } catch (err) {
    clearFlow(req, slot);
    return { refused: { status: 'failed', error: err as AuthError, record: await recordRejectedFlow(req.config, recordAs, flow.machine, err, browser) } };
  }
}
