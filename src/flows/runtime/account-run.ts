// One request of an account flow (sign-up) through the door: the flow's own cookie slot for this provider, its own
// part of the flow store, one run, then its outcome: a proven user handed to the standard sign-in stages as a
// provider's proof is (tail, second-factor stage, session, events), or a redirect through the redirect callback.
import { CallbackRouteError } from '../../core/errors.js';
import { dispatchEvent } from '../../core/events.js';
import { scopedFlowStore } from '../../core/flow-store/scoped.js';
import type { ResolvedProvider } from '../../core/provider.js';
import { applyRedirectCallback } from '../../core/redirect.js';
import type { RequestContext } from '../../core/request-context.js';
import { knownMethods } from '../../session/verification.js';
import { accountOutputOf, type AccountFlowDefinition, type AccountRoute } from './account.js';
import type { DoorAnswer, StepOptions } from './answer.js';
import type { FlowDeps, FlowEntry } from './contract.js';
import { sealPaused, slotAfter, slotCookieName, type FlowSlot, type PausedFlow } from './cookie.js';
import { flowDeps } from './deps.js';
import { afterProof, answerOf, recorded, withSpan, type SignInStages } from './flow.js';
import { openPaused } from './resume.js';
import { settleMachine, type RunOptions, type SettledFlow } from './run.js';
import type { StageDefinition } from './stage.js';
import type { TraceEntry } from './trace.js';
import { markTransition, noteActivity } from '../../activity/run.js';

/** The namespace of an account flow's store entries for one provider (a provider's own are `flow:<id>:`). */
export function accountStoreNamespace(flowId: string, providerId: string): string {
  return `account:${flowId}:${encodeURIComponent(providerId)}:`;
}

/** What an account flow's run needs from the registry: the stages after a proof, the second-factor stage. */
export interface AccountStages {
  signInStages(config: RequestContext['config']): Promise<SignInStages>;
  secondFactorStage(): Promise<StageDefinition>;
}

/** An account flow's request, as the door receives it. */
export interface AccountDoor {
  flow: AccountFlowDefinition;
  provider: ResolvedProvider;
  route: AccountRoute;
  callbackUrl: string;
}

/**
 * Runs `door.flow` for this request. Never throws for anything a client sent: a missing, tampered or foreign cookie
 * is a failed answer (and spent), a stray event a refused one (the paused flow stands).
 *
 * @example
 * const answer = await runAccountFlow(stages, req, { flow: signUpFlow, provider, route: 'submit', callbackUrl })
 */
export async function runAccountFlow(stages: AccountStages, req: RequestContext, door: AccountDoor, options: StepOptions = {}): Promise<DoorAnswer> {
  const { flow, provider, route } = door;
  const slot: FlowSlot = { account: { flow: flow.id, provider: provider.id } };
  const deps: FlowDeps = { ...flowDeps(req, provider, door.callbackUrl), store: scopedFlowStore(req.config.flowStore, accountStoreNamespace(flow.id, provider.id)) };
  const entry = flow.entry(route, deps, req.cookies[slotCookieName(req, slot)] !== undefined);
  if (!entry) return { status: 'notTaken' };
  const browser = options.browser?.(!entry.resume);
  let paused: PausedFlow | undefined;
  if (entry.resume) {
    const opened = await openPaused(req, slot, flow, provider.id, browser);
    if ('refused' in opened) return opened.refused;
    paused = opened.paused;
  }
  const signIn = await stages.signInStages(req.config);
  const runOptions = { browser, keepTrace: options.observe !== undefined };
  const result = await recorded(req, provider.id, flow, paused, runOptions, (span) => settleAccount(flow, deps, entry, paused, signIn, withSpan(runOptions, span)));
  options.observe?.(result.trace);
  slotAfter(req, slot, result, { resumed: entry.resume });
  if (result.status === 'paused' && result.slot === 'second-factor') return sealPaused(req, { stage: 'second-factor' }, await stages.secondFactorStage(), result.paused, result.response);
  if (result.status === 'paused') return sealPaused(req, slot, flow, result.paused, result.response);
  if (result.status === 'assured') return { status: 'failed', error: new CallbackRouteError('An account flow ended as a signed-in user\'s check.'), record: result.record };
  const answer = answerOf(result, false);
  if (answer.status === 'failed') answer.typed = true;
  return answer;
}

/** Settles the flow's machine and, when it proved a user, runs the sign-in stages for them. */
async function settleAccount(flow: AccountFlowDefinition, deps: FlowDeps, entry: FlowEntry, paused: PausedFlow | undefined, stages: SignInStages, options: RunOptions): Promise<SettledFlow> {
  const trace: TraceEntry[] = [];
  const input = { ...(flow.input?.(deps) ?? {}), deps, callbackUrl: deps.callbackUrl, providerId: deps.provider.id, startedAt: Date.now() };
  // What the machine emits reaches no event handler: only the runtime speaks for what changed.
  const settled = await settleMachine(flow.machine, input, entry.event, paused, trace, [], options);
  if (settled.kind !== 'paused') markTransition(deps.req, trace, settled.state);
  await noteAccountOutcome(deps, entry, settled, trace);
  switch (settled.kind) {
    case 'failed':
      return { status: 'failed', error: settled.error, state: settled.state, trace };
    case 'refused':
      return { status: 'refused', error: settled.error, state: settled.state, trace };
    case 'paused':
      return { status: 'paused', paused: settled.paused, response: settled.response, trace };
  }
  const out = accountOutputOf(settled.output);
  if (!out || (out.outcome === 'signIn' && out.amr && knownMethods(out.amr).length !== new Set(out.amr).size)) {
    return { status: 'failed', error: new CallbackRouteError('The account flow ended without an outcome.', { state: settled.state, actual: settled.output }), state: settled.state, trace };
  }
  if (out.outcome === 'redirected') return { status: 'redirected', url: await applyRedirectCallback(deps.req, out.url), trace };
  if (out.created) await dispatchEvent(deps.req.config.events, deps.req.config.logger, 'createUser', { user: out.user });
  const identity = { user: out.user, account: { provider: deps.provider.id, type: 'credentials' as const, providerAccountId: out.user.id }, existingUser: true as const };
  return afterProof(deps, settled.context, identity, out.amr, undefined, stages, trace, options, out.created === true);
}

/**
 * The outcomes of an account flow that are security events of their own: a recovery requested (a code or link sent:
 * the machine paused in `codeSent` after a request; naming nobody, so an address that has no account reads the
 * same). A recovery completed is recorded by the reset step, in the transaction of the new hash.
 */
async function noteAccountOutcome(deps: FlowDeps, entry: FlowEntry, settled: Awaited<ReturnType<typeof settleMachine>>, trace: TraceEntry[]): Promise<void> {
  const req = deps.req;
  if (!req.config.activity) return;
  const sent = entry.event.type;
  if (settled.kind === 'paused' && settled.paused.value === 'codeSent' && (sent === 'REQUEST' || sent === 'RESEND')) {
    markTransition(req, trace, 'codeSent');
    await noteActivity(req, { kind: 'recovery.requested', userId: null, method: 'password' });
  }
  // A recovery completed is written by the reset itself, in the transaction of the new hash (recovery-steps.ts).
}
