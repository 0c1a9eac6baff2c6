// One request's worth of a sign-in: the provider's flow, and, when it proves who someone is, the stages the registry
// names, in the same request: the standard sign-in tail (the user resolved), the second-factor machine when the
// configuration has second factors, then the session. The runtime imports no specific flow: the stages arrive as
// definitions. Every run leaves a record (trace.ts) for the logs and, in development, the inspector.
import type { EventObject } from 'xstate';
import { AccessDenied, AdapterError, AuthError, CallbackRouteError, Verification } from '../../core/errors.js';
import { dispatchEvent } from '../../core/events.js';
import { applyRedirectCallback } from '../../core/redirect.js';
import type { PendingSignIn } from './cookie.js';
import type { DoorAnswer } from './answer.js';
import type { StageDefinition, StageInput, StageOutput, StageStart } from './stage.js';
import type { AuthMethod } from '../../core/types.js';
import { issueSession } from '../../session/issue.js';
import { SSO_PROVIDER_PREFIX as SSO_PREFIX } from '../../sso/provider-id.js';
import { releaseClaim, spendAlone, type TokenSpend } from '../../session/spend.js';
import type { FlowContextBase } from './context.js';
import type { FlowDefinition, FlowDeps, FlowEntry, FlowInput, FlowOutput } from './contract.js';
import { dispatchEmitted, outputOf, settleMachine, settlementOutcome, type PausedFlow, type RunOptions, type SettledFlow } from './run.js';
import { completeFlow, recordFor } from './log.js';
import { isFlowId, newFlowId } from './flow-id.js';
import type { FlowRecord } from './record.js';
import type { TraceEntry } from './trace.js';
import { inFlowSpan } from './observe/flow-span.js';
import type { MachineSpan } from './observe/spans.js';
import { markTransition, openActivityRun } from '../../activity/run.js';
import { noteEmitted, noteSecondFactorFailed, noteSecondFactorPassed, noteSignInFailed, noteSignInRefused } from '../../activity/outcomes.js';

/**
 * The machines a proven identity goes through, from the registry: `tail` resolves the user (its output
 * `{ outcome: 'resolved' | 'redirected' }`), `secondFactor` (present when second factors are configured) raises the
 * sign-in to the level the user's policy asks for (the stage contract: started with a `signIn` StageStart, ending in
 * a StageOutput).
 */
export interface SignInStages {
  tail: FlowDefinition;
  /** Extra input for the tail beside `{ deps, callbackUrl, identity }` (a link stage's user). */
  tailInput?: Record<string, unknown>;
  secondFactor?: StageDefinition;
}

export interface RunFlowOptions extends RunOptions {
  /** The opaque id of the browser running this request, for the development flow log (see log.ts). */
  browser?: string;
}

/** How a run ended, with its record, already logged and kept by the time it returns. */
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

async function settle(flow: FlowDefinition, deps: FlowDeps, entry: FlowEntry, paused: PausedFlow | undefined, stages: SignInStages, options: RunOptions): Promise<SettledFlow> {
  const trace: TraceEntry[] = [];
  // Only the stages speak for a sign-in: what the flow machine emits never reaches `config.events`, so no flow can
  // announce a signIn (or createUser, ...) that the tail did not make.
  const flowEmitted: EventObject[] = [];
  const input: FlowInput & Record<string, unknown> = {
    ...(flow.input?.(deps) ?? {}),
    deps,
    callbackUrl: deps.callbackUrl,
    providerId: deps.provider.id,
    startedAt: Date.now(),
  };
  const first = await settleMachine(flow.machine, input, entry.event, paused, trace, flowEmitted, options);
  if (first.kind !== 'paused') markTransition(deps.req, trace, first.state);
  if (first.kind === 'failed') {
    await noteSignInFailed(deps.req, first.error);
    return failed(first.error, trace, first.state);
  }
  if (first.kind === 'refused') return { status: 'refused', error: first.error, state: first.state, trace };
  if (first.kind === 'paused') return { status: 'paused', paused: first.paused, response: first.response, trace };
  const out = outputOf(first.output, deps);
  if (!out) return failed(new CallbackRouteError('The flow ended without an outcome.', { state: first.state, actual: first.output }), trace, first.state);
  if (out.outcome === 'redirected') return { status: 'redirected', url: await destination(deps, out.url), trace };
  // Proven: the standard tail decides whether this becomes a session. A token the flow left unspent is used up with
  // the answer that reports it (a session, or a second-factor page); on any other answer (a failed spend among them)
  // its claim is given back, here and nowhere else: a second release could free a claim another request took since.
  const { outcome: _outcome, amr, spend, ...identity } = out;
  const proven = await afterProof(deps, first.context, identity, amr, spend, stages, trace, options);
  const spent = proven.status === 'signedIn' || proven.status === 'paused';
  if (spend && !spent) await releaseClaim(deps.req, spend);
  if (spend?.forget && spent) await deps.store.take(spend.forget).catch(() => undefined);
  return proven;
}

/**
 * The stages after a flow proved who someone is: the tail, the second-factor check, the session. `created`: the flow
 * made the user itself (an account flow's sign-up), so the sign-in is a new user's.
 */
export async function afterProof(
  deps: FlowDeps,
  context: FlowContextBase | undefined,
  identity: Omit<Extract<FlowOutput, { outcome: 'authenticated' }>, 'outcome' | 'amr' | 'spend'>,
  amr: AuthMethod[] | undefined,
  spend: TokenSpend | undefined,
  stages: SignInStages,
  trace: TraceEntry[],
  options: RunOptions,
  created = false,
): Promise<SettledFlow> {
  // The destination chosen when the flow started, sealed with it: a callback that comes back cross-site (OAuth
  // form_post) carries no callback-url cookie, so this request's own would be the default.
  const chosen = context?.callbackUrl;
  const callbackUrl = typeof chosen === 'string' && chosen ? await destination(deps, chosen) : deps.callbackUrl;

  const tailEmitted: EventObject[] = [];
  const tail = await stage('authchart.signin', stages.tail, { ...stages.tailInput, deps, callbackUrl, identity }, { type: 'START' }, undefined, trace, tailEmitted, options);
  await dispatchEmitted(deps, tailEmitted);
  await noteEmitted(deps.req, tailEmitted);
  if (tail.kind === 'failed' || tail.kind === 'refused') {
    await noteSignInFailed(deps.req, tail.error, identity.existingUser ? identity.user : undefined);
    return failed(tail.error, trace, tail.state);
  }
  if (tail.kind === 'paused') return failed(new CallbackRouteError('The sign-in tail paused, which it never does.'), trace);
  const resolved = tail.output as { outcome: string; url?: string } & Omit<PendingSignIn, 'providerId'>;
  if (resolved.outcome === 'redirected') {
    // The app's signIn callback answered with a URL: no session, a refusal on record (never a success).
    await noteSignInRefused(deps.req, identity.existingUser ? identity.user : undefined);
    return { status: 'redirected', url: String(resolved.url), trace };
  }
  const pending: PendingSignIn = {
    providerId: deps.provider.id,
    user: resolved.user,
    account: resolved.account,
    ...(resolved.profile ? { profile: resolved.profile } : {}),
    isNewUser: created || resolved.isNewUser === true,
    redirect: resolved.redirect,
    ...(amr ? { amr } : {}),
  };
  if (!stages.secondFactor) return signIn(deps, pending, undefined, trace, spend);
  const start: StageStart = { type: 'START', purpose: 'signIn', userId: String(pending.user.id), user: pending.user, account: pending.account };
  return runSecondFactor(deps, stages.secondFactor, start, undefined, pending, trace, options, spend);
}

/** Settles one stage machine and keeps its trace under its own machine id (and, when one records, its own span). */
async function stage(
  name: string,
  flow: Pick<FlowDefinition, 'machine'>,
  input: Record<string, unknown> & { deps: Pick<FlowDeps, 'req'> },
  event: EventObject,
  paused: PausedFlow | undefined,
  trace: TraceEntry[],
  emitted: EventObject[],
  options: RunOptions,
) {
  const own: TraceEntry[] = [];
  const span = options.span?.child(name, flow.machine.id);
  const settled = await settleMachine(flow.machine, input, event, paused, own, emitted, span ? { ...options, span } : options);
  if (span) {
    const { outcome, error } = settlementOutcome(settled);
    span.end(outcome, error);
  }
  trace.push(...own.map((t) => ({ ...t, machine: flow.machine.id })));
  return settled;
}

/**
 * Runs the second-factor stage (fresh, or resumed with the browser's answer). For a sign-in (`pending`) a pause
 * carries the pending sign-in in the sealed cookie and a pass issues the session; for a signed-in user's request
 * the outcome goes back to the door.
 */
async function runSecondFactor(
  deps: Pick<FlowDeps, 'req' | 'callbackUrl'>,
  flow: StageDefinition,
  event: EventObject,
  paused: PausedFlow | undefined,
  pending: PendingSignIn | undefined,
  trace: TraceEntry[],
  options: RunOptions,
  spend?: TokenSpend,
): Promise<SettledFlow> {
  const emitted: EventObject[] = [];
  const input: StageInput = { deps: { req: deps.req }, callbackUrl: pending?.redirect ?? deps.callbackUrl };
  const settled = await stage('authchart.second_factor', flow, { ...input }, event, paused, trace, emitted, options);
  await dispatchEmitted(deps, emitted);
  await noteEmitted(deps.req, emitted);
  // The user of the check: the pending sign-in's, or the signed-in user's the check was started or answered for.
  const checkUser = pending?.user.id ?? (paused?.context.userId as string | undefined) ?? (event as { userId?: string }).userId;
  if (settled.kind === 'failed') {
    // A wrong code that locked the check was recorded from what the machine emitted; any other failure is recorded here.
    if (!emitted.some((e) => e.type === 'secondFactorFailed' && (e as { locked?: boolean }).locked)) await noteSecondFactorFailed(deps.req, checkUser, settled.error);
    return failed(settled.error, trace, settled.state);
  }
  if (settled.kind === 'refused') return { status: 'refused', error: settled.error, state: settled.state, trace };
  if (settled.kind === 'paused') {
    // The second-factor page is the answer that reports the proof: the link is spent with it, not left for a replay.
    if (spend) {
      try {
        await spendAlone(deps.req, spend);
      } catch (err) {
        return failed(err instanceof AuthError ? err : new CallbackRouteError(err instanceof Error ? err : String(err)), trace, 'spendingToken');
      }
    }
    if (pending) settled.paused.pause = { signIn: pending };
    return { status: 'paused', paused: settled.paused, response: settled.response, trace, slot: 'second-factor' };
  }
  const result = settled.output as StageOutput | undefined;
  if (settled.kind === 'done' && result?.outcome === 'passed' && (pending || !(result as { changed?: boolean }).changed)) {
    await noteSecondFactorPassed(deps.req, checkUser, result.method, pending ? 'signIn' : (paused?.context.purpose as string | undefined));
  }
  if (!pending) return { status: 'assured', output: settled.output, trace };
  if (result?.outcome !== 'passed') return failed(new CallbackRouteError('The second-factor check ended without passing.', { actual: result?.outcome }), trace);
  return signIn(deps, pending, result.method, trace, spend);
}

/** Issues the session of a sign-in that reached its level, and announces it (`signIn`). */
async function signIn(deps: Pick<FlowDeps, 'req'>, pending: PendingSignIn, method: string | undefined, trace: TraceEntry[], spend?: TokenSpend): Promise<SettledFlow> {
  const { user, account, profile, isNewUser } = pending;
  try {
    await issueSession(deps.req, { user, account, profile, isNewUser }, method, pending.amr, spend);
  } catch (err) {
    await noteSignInFailed(deps.req, err, user);
    if (err instanceof AccessDenied || err instanceof AdapterError || err instanceof Verification) return failed(err, trace, 'issuingSession');
    return failed(new CallbackRouteError(err instanceof Error ? err : String(err), { state: 'issuingSession' }), trace, 'issuingSession');
  }
  // An organization's SSO connection signed this person in (its provider id `sso-<connection id>`, OIDC or SAML): they
  // join its organization and it becomes the session's active one, here, whether or not a second factor came between.
  if (deps.req.config.sso && account?.provider.startsWith(SSO_PREFIX)) await (await import('../../sso/provision.js')).joinAfterSignIn(deps.req, account.provider, String(user.id));
  await dispatchEvent(deps.req.config.events, deps.req.config.logger, 'signIn', { user, account, profile, isNewUser });
  return { status: 'signedIn', redirect: pending.redirect, user, account, profile, isNewUser, trace };
}

/**
 * Runs one request's worth of a flow: starts a fresh actor (or restores `paused`), sends the entry event, waits
 * until the machine settles, runs the sign-in stages when the flow proved an identity, and dispatches the events.
 *
 * @example
 * const result = await runFlow(credentialsFlow, deps, { resume: false, event: { type: 'SUBMIT', credentials } }, undefined, { stages })
 */
export async function runFlow(flow: FlowDefinition, deps: FlowDeps, entry: FlowEntry, paused: PausedFlow | undefined, options: RunFlowOptions & { stages: SignInStages }): Promise<FlowResult> {
  return recorded(deps.req, deps.provider.id, flow, paused, options, (span) => settle(flow, deps, entry, paused, options.stages, withSpan(options, span)));
}

/**
 * Runs the second-factor stage for a request: started for a signed-in user (`START` with their purpose), or resumed
 * from its cookie with the browser's answer. A resumed sign-in (its pending sign-in in the pause, checked when the
 * cookie was opened) issues its session when the check passes.
 *
 * @example
 * const result = await runStage(secondFactorStage, { req, callbackUrl }, { type: 'START', purpose: 'stepUp', userId })
 */
export async function runStage(flow: StageDefinition, deps: Pick<FlowDeps, 'req' | 'callbackUrl'>, event: EventObject, paused?: PausedFlow, options: RunFlowOptions = {}): Promise<FlowResult> {
  const pending = paused?.pause?.signIn;
  const provider = pending?.providerId ?? flow.machine.id;
  return recorded(deps.req, provider, flow, paused, options, (span) => runSecondFactor(deps, flow, event, paused, pending, [], withSpan(options, span)));
}

/**
 * Runs a machine that signs nobody in (an app's signed-in flow) for one request, recorded and traced like any run. A
 * machine that ends is `assured` with its output, for the door to apply; what it emits reaches no event handler
 * (only the runtime speaks for what changed).
 *
 * @example
 * const result = await runOwn(flow, req, input, entry, paused)
 */
export async function runOwn(
  flow: Pick<FlowDefinition, 'machine' | 'version'>,
  req: FlowDeps['req'],
  input: Record<string, unknown> & { deps: Pick<FlowDeps, 'req'> },
  entry: FlowEntry,
  paused: PausedFlow | undefined,
  options: RunFlowOptions = {},
): Promise<FlowResult> {
  return recorded(req, flow.machine.id, flow, paused, options, async (span) => {
    const trace: TraceEntry[] = [];
    const settled = await settleMachine(flow.machine, input, entry.event, paused, trace, [], withSpan(options, span));
    switch (settled.kind) {
      case 'done':
        return { status: 'assured', output: settled.output, trace };
      case 'paused':
        return { status: 'paused', paused: settled.paused, response: settled.response, trace };
      case 'refused':
        return { status: 'refused', error: settled.error, state: settled.state, trace };
      case 'failed':
        return failed(settled.error, trace, settled.state);
    }
  });
}

export function withSpan<T extends RunOptions>(options: T, span: MachineSpan | undefined): T {
  return span ? { ...options, span } : options;
}

/** Runs `run` (in a span, when one records) and logs its record; the runs of one sign-in share the flow id carried in the paused context. */
export async function recorded(
  req: FlowDeps['req'],
  provider: string,
  flow: Pick<FlowDefinition, 'machine' | 'version'>,
  paused: PausedFlow | undefined,
  options: RunFlowOptions,
  run: (span: MachineSpan | undefined) => Promise<SettledFlow>,
): Promise<FlowResult> {
  const { machine } = flow;
  const startedAt = Date.now();
  const clock = performance.now();
  const carried = paused?.context[FLOW_ID_KEY];
  const id = isFlowId(carried) ? carried : newFlowId();
  // The activity records of this run share its id (the flow record's, the span's `authchart.flow.id`).
  const closeActivity = openActivityRun(req, { correlationId: id, flow: { machine: machine.id, version: String(flow.version) }, provider });
  let result: SettledFlow;
  try {
    result = await inFlowSpan(provider, machine.id, flow.version, run, (r) => ({ outcome: r.status, error: r.status === 'failed' || r.status === 'refused' ? r.error : undefined }), id);
  } finally {
    await closeActivity();
  }
  if (result.status === 'paused') result.paused.context[FLOW_ID_KEY] = id;
  const record = await recordFor(req.config, {
    id,
    provider,
    machine: machine.id,
    startedAt,
    durationMs: performance.now() - clock,
    status: result.status,
    trace: result.trace,
    error: result.status === 'failed' ? result.error : undefined,
  });
  completeFlow(req.config, record, machine, options.browser);
  return { ...result, record };
}

/** A run's result as the door answers it (a pause is sealed by the door, which knows the slot). */
export function answerOf(result: FlowResult, link: boolean): DoorAnswer {
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
