// One request's worth of a sign-in: the provider's flow, and, when it proves who someone is, the standard sign-in
// tail in the same request. Every run leaves a record (trace.ts) for the logs and, in development, the inspector.
import type { AnyStateMachine, EventObject } from 'xstate';
import { CallbackRouteError, type AuthError } from '../../core/errors.js';
import { applyRedirectCallback } from '../../core/redirect.js';
import { signInFlow } from '../signin/machine.js';
import type { SignInInput, SignInOutput } from '../signin/machine.js';
import type { FlowDefinition, FlowDeps, FlowEntry, FlowInput } from './contract.js';
import { dispatchEmitted, outputOf, settleMachine, type PausedFlow, type RunOptions, type SettledFlow } from './run.js';
import { completeFlow, recordFor } from './log.js';
import { isFlowId, newFlowId } from './flow-id.js';
import type { FlowRecord } from './record.js';
import type { TraceEntry } from './trace.js';

/** The sign-in tail's flow definition, for the HTTP layer that seals and opens its paused second-factor stage. */
export const signInTail = signInFlow;

export interface RunFlowOptions extends RunOptions {
  /** The opaque id of the browser running this request, for the development flow log (see log.ts). */
  browser?: string;
}

/** How a run ended, with its record, already logged and kept by the time runFlow returns. */
export type FlowResult = SettledFlow & { record: FlowRecord };

/**
 * The context key that carries the flow id across a pause, so the runs of one sign-in share one id. It rides in
 * the sealed flow cookie with the rest of the context; the machines never read it.
 */
export const FLOW_ID_KEY = 'flowId';

function failed(error: AuthError, trace: TraceEntry[], state?: string): SettledFlow {
  return { status: 'failed', error, state, trace };
}

/**
 * Where a flow may send the browser. A built-in flow's URLs were validated when it made them; a custom flow's pass
 * the `redirect` callback (same origin by default) like any other redirect, whatever the flow built them from.
 */
async function destination(deps: FlowDeps, url: string): Promise<string> {
  return deps.provider.flow === undefined ? url : applyRedirectCallback(deps.req, url);
}

async function settle(flow: FlowDefinition, deps: FlowDeps, entry: FlowEntry, paused: PausedFlow | undefined, options: RunOptions): Promise<SettledFlow> {
  const trace: TraceEntry[] = [];
  // Only the standard tail speaks for a sign-in: what the flow machine emits never reaches `config.events`, so no
  // flow can announce a signIn (or createUser, ...) that the tail did not make.
  const flowEmitted: EventObject[] = [];
  const input: FlowInput & Record<string, unknown> = {
    ...(flow.input?.(deps) ?? {}),
    deps,
    callbackUrl: deps.callbackUrl,
    providerId: deps.provider.id,
    startedAt: Date.now(),
  };
  const first = await settleMachine(flow.machine, input, entry.event, paused, trace, flowEmitted, options);
  if (first.kind === 'failed') return failed(first.error, trace, first.state);
  if (first.kind === 'paused') return { status: 'paused', paused: first.paused, response: first.response, trace };
  const out = outputOf(first.output, deps);
  if (!out) return failed(new CallbackRouteError('The flow ended without an outcome.', { state: first.state, actual: first.output }), trace, first.state);
  if (out.outcome === 'redirected') return { status: 'redirected', url: await destination(deps, out.url), trace };
  // Proven: the standard tail decides whether this becomes a session.
  const { outcome: _outcome, ...identity } = out;
  // The destination chosen when the flow started, sealed with it: a callback that comes back cross-site (OAuth
  // form_post) carries no callback-url cookie, so this request's own would be the default.
  const chosen = first.context?.callbackUrl;
  const callbackUrl = typeof chosen === 'string' && chosen ? await destination(deps, chosen) : deps.callbackUrl;
  return settleTail(deps, { deps, callbackUrl, identity }, { type: 'START' }, undefined, trace, options);
}

/** Runs the sign-in tail (fresh, or resumed at its second-factor stage) and turns how it settled into the result. */
async function settleTail(deps: FlowDeps, input: SignInInput | { deps: FlowDeps }, event: EventObject, paused: PausedFlow | undefined, trace: TraceEntry[], options: RunOptions): Promise<SettledFlow> {
  const tailTrace: TraceEntry[] = [];
  const tailEmitted: EventObject[] = [];
  const tail = await settleMachine(signInFlow.machine, input as Record<string, unknown> & { deps: FlowDeps }, event, paused, tailTrace, tailEmitted, options);
  trace.push(...tailTrace.map((t) => ({ ...t, machine: signInFlow.machine.id })));
  await dispatchEmitted(deps, tailEmitted);
  if (tail.kind === 'failed') return failed(tail.error, trace, tail.state);
  // Paused at the second-factor stage: sealed in the stage's own cookie, not the provider's.
  if (tail.kind === 'paused') return { status: 'paused', paused: tail.paused, response: tail.response, trace, atSignIn: true };
  const result = tail.output as SignInOutput;
  if (result.outcome === 'redirected') return { status: 'redirected', url: result.url, trace };
  return { status: 'signedIn', redirect: result.redirect, user: result.user, account: result.account, profile: result.profile, isNewUser: result.isNewUser, trace };
}

/**
 * Runs one request's worth of a flow: starts a fresh actor (or restores `paused`), sends the entry event, waits
 * until the machine settles, runs the sign-in tail when the flow proved an identity, and dispatches the events.
 *
 * @example
 * const result = await runFlow(credentialsFlow, deps, { resume: false, event: { type: 'SUBMIT', credentials } })
 */
export async function runFlow(flow: FlowDefinition, deps: FlowDeps, entry: FlowEntry, paused?: PausedFlow, options: RunFlowOptions = {}): Promise<FlowResult> {
  return recorded(deps, flow.machine, paused, options, () => settle(flow, deps, entry, paused, options));
}

/** Runs `run` and logs its record; the runs of one sign-in share the flow id carried in the paused context. */
async function recorded(deps: FlowDeps, machine: AnyStateMachine, paused: PausedFlow | undefined, options: RunFlowOptions, run: () => Promise<SettledFlow>): Promise<FlowResult> {
  const startedAt = Date.now();
  const clock = performance.now();
  const carried = paused?.context[FLOW_ID_KEY];
  const id = isFlowId(carried) ? carried : newFlowId();
  const result = await run();
  if (result.status === 'paused') result.paused.context[FLOW_ID_KEY] = id;
  const record = await recordFor(deps.req.config, {
    id,
    provider: deps.provider.id,
    machine: machine.id,
    startedAt,
    durationMs: performance.now() - clock,
    status: result.status,
    trace: result.trace,
    error: result.status === 'failed' ? result.error : undefined,
  });
  completeFlow(deps.req.config, record, machine, options.browser);
  return { ...result, record };
}

/**
 * Resumes a sign-in paused at the second-factor stage (the tail sealed in its own cookie) with the request's
 * event: the code typed. `deps.provider` is the provider whose flow proved the identity.
 *
 * @example
 * const result = await resumeSignIn(deps, paused, { type: 'SUBMIT_CODE', code })
 */
export async function resumeSignIn(deps: FlowDeps, paused: PausedFlow, event: EventObject, options: RunFlowOptions = {}): Promise<FlowResult> {
  return recorded(deps, signInFlow.machine, paused, options, () => settleTail(deps, { deps }, event, paused, [], options));
}
