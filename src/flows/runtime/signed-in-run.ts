// One request of an app's signed-in flow through the door: the session gate at the flow's level, the flow's own
// cookie slot bound to the signed-in user, one run, then the outcome applied by the runtime (the user updated, a
// passed check recorded in the session, the other sessions ended) and the browser sent on.
import { AccessDenied, AuthError, CallbackRouteError, MissingAdapterMethods } from '../../core/errors.js';
import { scopedFlowStore } from '../../core/flow-store/scoped.js';
import { applyRedirectCallback } from '../../core/redirect.js';
import type { RequestContext } from '../../core/request-context.js';
import { sessionGate } from '../../session/gate.js';
import { revokeOtherSessions } from '../../session/session-control.js';
import { strategyFor } from '../../session/strategy.js';
import { knownMethods } from '../../session/verification.js';
import { sealPaused, slotAfter, slotCookieName, type FlowSlot, type PausedFlow } from './cookie.js';
import type { DoorAnswer, StepOptions } from './answer.js';
import { noteActivity } from '../../activity/run.js';
import { answerOf, runOwn } from './flow.js';
import { openPaused } from './resume.js';
import { signedInOutputOf, type SignedInDeps, type SignedInFlowDefinition, type SignedInInput, type SignedInOutput, type SignedInRoute } from './signed-in.js';
// Static: the members module is in the root entry's chunk, and an import() of that chunk would make a bundler treat
// it as an entry of its own, every export of it live, so an app's start bundle would carry all of it.
import { accessOf } from '../../organizations/members.js';

/** The namespace of a signed-in flow's store entries (a provider's are `flow:<id>:`, so the two never meet). */
export function signedInStoreNamespace(flowId: string): string {
  return `signed-in:${encodeURIComponent(flowId)}:`;
}

/**
 * Runs `flow` for this request's signed-in user. Below the flow's level (or signed out) nothing runs and the paused
 * flow stands; a paused flow of another user is refused and spent.
 *
 * @example
 * const answer = await runSignedInFlow(req, confirmPhone, 'continue', callbackUrl)
 */
export async function runSignedInFlow(req: RequestContext, flow: SignedInFlowDefinition, route: SignedInRoute, callbackUrl: string, options: StepOptions = {}): Promise<DoorAnswer> {
  const slot: FlowSlot = { signedIn: flow.id };
  const gate = await sessionGate(req, flow.level ?? {});
  if (!gate.ok) return { status: gate.reason, callbackUrl };
  const deps: SignedInDeps = {
    req,
    session: { userId: gate.userId, amr: gate.verification?.amr ?? [], authTime: gate.verification?.authTime ?? null },
    callbackUrl,
    store: scopedFlowStore(req.config.flowStore, signedInStoreNamespace(flow.id)),
  };
  const entry = flow.entry(route, deps, req.cookies[slotCookieName(req, slot)] !== undefined);
  if (!entry) return { status: 'notTaken' };
  const browser = options.browser?.(!entry.resume);
  let paused: PausedFlow | undefined;
  if (entry.resume) {
    // Bound to the user who started it: a cookie carried into another user's browser, or kept across a sign-out and
    // a sign-in as someone else, is refused.
    const opened = await openPaused(req, slot, flow, flow.id, browser, (p) => {
      if (p.pause?.owner !== gate.userId) throw new AccessDenied('This flow was started by another user.', { expected: 'the signed-in user', actual: 'another user' });
    });
    if ('refused' in opened) return opened.refused;
    paused = opened.paused;
  }
  const input: SignedInInput & Record<string, unknown> = { ...(flow.input?.(deps) ?? {}), deps, callbackUrl, flowId: flow.id, userId: gate.userId, startedAt: Date.now() };
  const result = await runOwn(flow, req, input, entry, paused, { browser, keepTrace: options.observe !== undefined });
  options.observe?.(result.trace);
  slotAfter(req, slot, result, { resumed: entry.resume });
  if (result.status === 'paused') {
    result.paused.pause = { owner: gate.userId };
    return sealPaused(req, slot, flow, result.paused, result.response);
  }
  if (result.status !== 'assured') return answerOf(result, false);
  const sealed = paused?.context.callbackUrl;
  const back = typeof sealed === 'string' && sealed ? sealed : callbackUrl;
  // The record the flow declares for a completed run, before or after its outcome is applied (completedRecord).
  const noted = (result.output as { outcome?: string } | undefined)?.outcome === 'completed' ? flow.completedRecord : undefined;
  const note = async (when: 'before' | 'after') => {
    if (noted?.when !== when) return;
    await noteActivity(req, { kind: noted.kind, userId: gate.userId, method: noted.method, correlationId: result.record.id, flow: { machine: flow.machine.id, version: String(flow.version), transition: '→ changed' } });
  };
  try {
    await note('before');
    const answer = await applyOutcome(req, gate.userId, result.output, back);
    await note('after');
    return answer;
  } catch (err) {
    return { status: 'failed', error: err instanceof AuthError ? err : new CallbackRouteError(err instanceof Error ? err : String(err), { state: 'applyingOutcome' }), record: result.record };
  }
}

/** Applies a finished signed-in flow's outcome for `userId`, in the order {@link SignedInOutput} documents. */
async function applyOutcome(req: RequestContext, userId: string, value: unknown, back: string): Promise<DoorAnswer> {
  const out: SignedInOutput | undefined = signedInOutputOf(value);
  if (!out) throw new CallbackRouteError('The signed-in flow ended without an outcome.', { state: 'applyingOutcome', actual: value });
  if (out.outcome === 'redirected') return { status: 'redirected', url: await applyRedirectCallback(req, out.url) };
  if (out.user) {
    const adapter = req.config.adapter;
    if (!adapter?.updateUser) throw new MissingAdapterMethods('A signed-in flow that updates the user needs an adapter with updateUser.');
    await adapter.updateUser({ ...out.user, id: userId });
  }
  if (out.passed !== undefined) {
    if (knownMethods([out.passed]).length !== 1) throw new CallbackRouteError(`A signed-in flow passed an unknown method "${String(out.passed)}".`, { state: 'applyingOutcome' });
    if (!(await strategyFor(req).reverify(req, out.passed))) throw new AccessDenied('The session ended while the flow ran.');
  }
  if (out.endOtherSessions) await revokeOtherSessions(req);
  if (out.organization !== undefined) {
    // Only an organization the user belongs to now: a flow's word is not a membership.
    if (!(await accessOf(req.config, out.organization, userId))) throw new AccessDenied('Not a member of the organization the flow named.');
    if (!(await strategyFor(req).setOrganization(req, out.organization))) throw new AccessDenied('The session ended while the flow ran.');
  }
  return { status: 'redirected', url: await applyRedirectCallback(req, out.redirect ?? back), session: 'rewritten' };
}
