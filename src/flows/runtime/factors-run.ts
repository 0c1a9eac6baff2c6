// One request's worth of a signed-in user's factor flow (flows/factors/manage.ts): restore or start, send, settle,
// dispatch what it emitted, and leave a record for the logs and the inspector like any sign-in.
import type { EventObject } from 'xstate';
import { CallbackRouteError, type AuthError } from '../../core/errors.js';
import { factorsFlow, type FactorsOutput } from '../factors/manage.js';
import type { StageDeps } from '../factors/steps.js';
import type { FlowResponse } from './contract.js';
import { isFlowId, newFlowId } from './flow-id.js';
import { FLOW_ID_KEY } from './flow.js';
import { completeFlow, recordFor } from './log.js';
import { dispatchEmitted, settleMachine, type PausedFlow, type RunOptions } from './run.js';
import type { TraceEntry } from './trace.js';

/** The factor flow's definition, for the HTTP layer that seals and opens it. */
export { factorsFlow };

/** How a run of the factor flow settled. */
export type FactorsResult =
  | { status: 'done'; output: FactorsOutput }
  | { status: 'paused'; paused: PausedFlow; response: FlowResponse }
  | { status: 'failed'; error: AuthError };

function isOutput(value: unknown): value is FactorsOutput {
  const o = value as FactorsOutput | undefined;
  return typeof o?.redirect === 'string' && (o.outcome === 'done' || o.outcome === 'signIn' || (o.outcome === 'codes' && Array.isArray(o.codes)));
}

/**
 * Runs the factor flow: fresh with `START`, or the paused one with the typed code.
 *
 * @example
 * const result = await runFactorsFlow({ req, callbackUrl }, { type: 'START', op: 'backupCodes', userId })
 */
export async function runFactorsFlow(
  deps: StageDeps & { callbackUrl: string },
  event: EventObject,
  paused?: PausedFlow,
  options: RunOptions & { browser?: string } = {},
): Promise<FactorsResult> {
  const { config } = deps.req;
  const startedAt = Date.now();
  const clock = performance.now();
  const trace: TraceEntry[] = [];
  const emitted: EventObject[] = [];
  const settled = await settleMachine(factorsFlow.machine, { deps: { req: deps.req }, callbackUrl: deps.callbackUrl }, event, paused, trace, emitted, options);
  await dispatchEmitted(deps, emitted);
  let result: FactorsResult;
  if (settled.kind === 'failed') result = { status: 'failed', error: settled.error };
  else if (settled.kind === 'paused') result = { status: 'paused', paused: settled.paused, response: settled.response };
  else if (isOutput(settled.output)) result = { status: 'done', output: settled.output };
  else result = { status: 'failed', error: new CallbackRouteError('The factor flow ended without an outcome.', { state: settled.state }) };

  const carried = paused?.context[FLOW_ID_KEY];
  const id = isFlowId(carried) ? carried : newFlowId();
  if (result.status === 'paused') result.paused.context[FLOW_ID_KEY] = id;
  const status = result.status === 'failed' ? 'failed' : result.status === 'paused' ? 'paused' : 'redirected';
  const record = await recordFor(config, {
    id,
    provider: 'factors',
    machine: factorsFlow.machine.id,
    startedAt,
    durationMs: performance.now() - clock,
    status,
    trace: trace.map((t) => ({ ...t, machine: factorsFlow.machine.id })),
    error: result.status === 'failed' ? result.error : undefined,
  });
  completeFlow(config, record, factorsFlow.machine, options.browser);
  return result;
}
