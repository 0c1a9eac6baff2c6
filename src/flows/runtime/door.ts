// The one door: every machine a request runs goes through `step(req, door, event?)`, whatever it is (a provider's
// sign-in flow, the second-factor stage, a signed-in flow, an account flow, a job). It opens the door's cookie slot, restores, runs
// and settles, then seals, clears or keeps the slot by one rule (slot-rule.ts), and answers in one typed shape that
// the HTTP layer turns into a response. Nothing else drives a machine or touches a flow cookie.
import type { EventObject } from 'xstate';
import { CallbackRouteError, InvalidCheck, InvalidProvider, UnknownAction, type AuthError } from '../../core/errors.js';
import type { ResolvedProvider } from '../../core/provider.js';
import type { RequestContext } from '../../core/request-context.js';
import { sessionGate } from '../../session/gate.js';
import { clearFlow, keepFlow, openFlow, sealFlow, sealPaused, slotAfter, slotCookieName, slotNames, type FlowSlot, type PausedFlow } from './cookie.js';
import type { FlowDefinition, FlowRoute } from './contract.js';
import { flowDeps } from './deps.js';
import { answerOf, runFlow, runStage, type FlowResult, type SignInStages } from './flow.js';
import type { JobDefinition } from './job.js';
import { openPaused } from './resume.js';
import { settleMachine, settlementOutcome, type RunOptions } from './run.js';
import type { AccountFlowDefinition, AccountRoute } from './account.js';
import type { SignedInFlowDefinition, SignedInRoute } from './signed-in.js';
import type { DoorAnswer, StepOptions } from './answer.js';

export type { DoorAnswer, StepOptions };
import type { StageDefinition, StageOutput, StagePurpose } from './stage.js';
import type { TraceEntry } from './trace.js';
import { recordFactorCheck } from '../../session/factor-check.js';
import { inFlowSpan } from './observe/flow-span.js';
import { newFlowId } from './flow-id.js';
import { openActivityRun } from '../../activity/run.js';
import { lazy } from '../../core/lazy.js';

// Signed-in flows (the app's own, change-password, invitations) and account flows (sign-up, recovery) load with the
// first one a request runs: a provider's sign-in never needs them, so a first sign-in does not load or compile them.
const loadSignedInRun = lazy(() => import('./signed-in-run.js'));
const loadAccountRun = lazy(() => import('./account-run.js'));

/**
 * The machines the door runs, as the registry names them: the runtime imports no specific flow, so they are handed
 * in (flows/registry.ts binds its own and exports the bound `step`).
 */
export interface DoorCatalog {
  flowFor(provider: ResolvedProvider): Promise<FlowDefinition>;
  signInStages(config: RequestContext['config']): Promise<SignInStages>;
  linkStages(userId: string): Promise<SignInStages>;
  secondFactorStage(): Promise<StageDefinition>;
  /** The account flow `id` (`signup`) of a provider that has it, else undefined. */
  accountFlow(id: string, provider: ResolvedProvider): Promise<AccountFlowDefinition | undefined>;
  /** The signed-in flow `id`: the app's own, or a built-in one (change-password); the app's alone when absent. */
  signedInFlow?(config: RequestContext['config'], id: string): Promise<SignedInFlowDefinition | undefined>;
}

/** A throttle (or any limit) the door consults once it knows whose request this is, and settles after the run. */
export type Admit = (who: { userId: string }) => Promise<{ refused: unknown } | { settle(passed: boolean, error?: unknown): Promise<void> } | undefined>;

/** Which machine a request runs, and from where. */
export type Door =
  /** A provider's sign-in flow from one of its routes; `link`: the signed-in user a `POST link/:provider` started it for. */
  | { kind: 'signIn'; provider: ResolvedProvider; route: FlowRoute; callbackUrl: string; link?: string }
  /** The second-factor stage: started for the signed-in user (`start`), or a paused check answered by this request. */
  | { kind: 'secondFactor'; start?: { purpose: Exclude<StagePurpose, 'signIn'>; factorId?: string; maxAge?: number }; callbackUrl?: string; admit?: Admit }
  /** An app's signed-in flow from `POST {basePath}/flows/:id/start` or `GET|POST {basePath}/flows/:id`. */
  | { kind: 'signedIn'; flow: SignedInFlowDefinition; route: SignedInRoute; callbackUrl: string }
  /**
   * An account flow an anonymous visitor runs for a provider, ending in no callback of the provider's (sign-up): from
   * `POST {basePath}/{flow id}/:provider` (`submit`) or a link in a mail (`link`).
   */
  | { kind: 'account'; flow: AccountFlowDefinition; provider: ResolvedProvider; route: AccountRoute; callbackUrl: string }
  /** The page a paused flow shows, read from its slot (`GET {basePath}/flow/:slot`): nothing runs, nothing is spent. */
  | { kind: 'page'; slot: string }
  /** A job for a provider: fresh, or (`resume`) the paused one from the provider's logout slot. */
  | { kind: 'job'; job: JobDefinition<never>; provider: ResolvedProvider; args?: unknown; resume?: boolean; trace?: TraceEntry[] };


/**
 * Runs the machine a request is for, through its cookie slot. Never throws for anything a client sent: a missing,
 * tampered, expired or foreign cookie, a stray event, a thrown actor all come back as answers.
 *
 * @example
 * const answer = await step(req, { kind: 'signIn', provider, route: 'callback', callbackUrl })
 * if (answer.status === 'signedIn') return redirect(answer.redirect)
 */
export async function step(catalog: DoorCatalog, req: RequestContext, door: Door, event?: EventObject & Record<string, unknown>, options: StepOptions = {}): Promise<DoorAnswer> {
  switch (door.kind) {
    case 'signIn':
      return signInStep(catalog, req, door, options);
    case 'secondFactor':
      return door.start ? secondFactorStart(catalog, req, door, door.start, options) : secondFactorAnswer(catalog, req, door, options);
    case 'signedIn':
      return (await loadSignedInRun()).runSignedInFlow(req, door.flow, door.route, door.callbackUrl, options);
    case 'account':
      return (await loadAccountRun()).runAccountFlow(catalog, req, door, options);
    case 'page':
      return pageStep(catalog, req, door.slot);
    case 'job':
      return jobStep(req, door, event);
  }
}

/** A provider's sign-in flow (or a link): entry, restore, run, the stages after a proof, the slots sealed or cleared. */
async function signInStep(catalog: DoorCatalog, req: RequestContext, door: Extract<Door, { kind: 'signIn' }>, options: StepOptions): Promise<DoorAnswer> {
  const { provider, route } = door;
  const flow = await catalog.flowFor(provider);
  const deps = flowDeps(req, provider, door.callbackUrl);
  const slot: FlowSlot = { provider: provider.id };
  const pausedHere = req.cookies[slotCookieName(req, slot)] !== undefined;
  // A flow with no entry of its own for a link is entered as at sign-in: what it proves goes to the link stage.
  const entry = flow.entry(route, deps, pausedHere) ?? (route === 'link' ? flow.entry('signin', deps, pausedHere) : null);
  if (!entry) return { status: 'notTaken', route };
  // Development only: which browser ran this request, so the inspector shows each browser its own flows.
  const browser = options.browser?.(!entry.resume);
  let paused: PausedFlow | undefined;
  if (entry.resume) {
    const opened = await openPaused(req, slot, flow, provider.id, browser);
    if ('refused' in opened) return opened.refused;
    paused = opened.paused;
  }
  const link = door.link ?? paused?.pause?.link;
  const stages = link ? await catalog.linkStages(link) : await catalog.signInStages(req.config);
  const result = await runFlow(flow, deps, entry, paused, { browser, stages, keepTrace: options.observe !== undefined });
  options.observe?.(result.trace);
  slotAfter(req, slot, result, { resumed: entry.resume });
  if (result.status === 'paused' && result.slot === 'second-factor') return sealPaused(req, { stage: 'second-factor' }, await catalog.secondFactorStage(), result.paused, result.response);
  if (result.status === 'paused') {
    if (link) result.paused.pause = { ...result.paused.pause, link };
    return sealPaused(req, slot, flow, result.paused, result.response);
  }
  if (result.status === 'assured') return { status: 'failed', error: new UnknownAction("A sign-in ended as a signed-in user's factor check.") };
  const answer = answerOf(result, link !== undefined);
  if (answer.status === 'failed' && !link) answer.typed = true;
  return answer;
}

/** The second-factor stage started for the signed-in user: gated, then run from `START`. */
async function secondFactorStart(
  catalog: DoorCatalog,
  req: RequestContext,
  door: Extract<Door, { kind: 'secondFactor' }>,
  start: NonNullable<Extract<Door, { kind: 'secondFactor' }>['start']>,
  options: StepOptions,
): Promise<DoorAnswer> {
  const callbackUrl = door.callbackUrl ?? `${req.authUrl}/factors`;
  const gate = await sessionGate(req);
  if (!gate.ok) return { status: 'signedOut', callbackUrl };
  const stage = await catalog.secondFactorStage();
  const event = {
    type: 'START',
    purpose: start.purpose,
    userId: gate.userId,
    verifiedAt: gate.verification?.authTime.getTime(),
    ...(start.maxAge !== undefined ? { level: { maxAge: start.maxAge } } : {}),
    ...(start.factorId ? { factorId: start.factorId } : {}),
  };
  const result = await runStage(stage, { req, callbackUrl }, event, undefined, { browser: options.browser?.(true) });
  return stageAnswer(req, stage, result);
}

/** A paused second-factor check answered by this request (a code, a passkey, a request for passkey options). */
async function secondFactorAnswer(catalog: DoorCatalog, req: RequestContext, door: Extract<Door, { kind: 'secondFactor' }>, options: StepOptions): Promise<DoorAnswer> {
  const stage = await catalog.secondFactorStage();
  const slot: FlowSlot = { stage: 'second-factor' };
  let paused: PausedFlow;
  try {
    paused = openFlow(req, slot, stage);
  } catch (err) {
    clearFlow(req, slot);
    return { status: 'failed', error: err as AuthError };
  }
  const sealed = paused.context.callbackUrl;
  const callbackUrl = typeof sealed === 'string' ? sealed : `${req.authUrl}/factors`;
  const answer = stage.answer(req);
  // Not a request the check takes (a GET without `action=authenticate`): the paused check is left as it was.
  if (!answer) return { status: 'notTaken' };
  let event: EventObject & { userId?: string } = answer;
  // A signed-in user's check is answered only from a live session (the machine compares the users); a sign-in's
  // has no session yet.
  if (!paused.pause?.signIn) {
    const gate = await sessionGate(req);
    if (!gate.ok) {
      clearFlow(req, slot);
      return { status: 'signedOut', callbackUrl };
    }
    event = { ...event, userId: gate.userId };
  }
  // Answers count against the user across all their pending checks; a passkey options request is no answer.
  const userId = paused.context.userId;
  const admitted = req.method === 'POST' && door.admit && typeof userId === 'string' && userId !== '' ? await door.admit({ userId }) : undefined;
  if (admitted && 'refused' in admitted) return { status: 'limited', reply: admitted.refused };
  const result = await runStage(stage, { req, callbackUrl }, event, paused, { browser: options.browser?.(false) });
  await admitted?.settle(result.status === 'signedIn' || result.status === 'assured', result.status === 'failed' ? result.error : undefined);
  slotAfter(req, slot, result, { resumed: true });
  return stageAnswer(req, stage, result);
}

/** How a second-factor run ends for the door: paused (sealed), a signed-in user's outcome applied, or as any run. */
async function stageAnswer(req: RequestContext, stage: StageDefinition, result: FlowResult): Promise<DoorAnswer> {
  if (result.status === 'paused') return sealPaused(req, { stage: 'second-factor' }, stage, result.paused, result.response);
  if (result.status !== 'assured') return answerOf(result, false);
  const output = result.output as StageOutput;
  // A signed-in user's check that passed is recorded in their session (and a change of factors ends their others).
  if (output.outcome !== 'signIn') await recordFactorCheck(req, { method: output.method, changed: output.outcome === 'codes' || output.changed });
  return { status: 'assured', output };
}

/** `GET {basePath}/flow/:slot`: the page a paused flow shows, read from its slot; it only reads. */
async function pageStep(catalog: DoorCatalog, req: RequestContext, name: string): Promise<DoorAnswer> {
  let slot: FlowSlot;
  let flow: { machine: { id: string }; version: number };
  if (name === 'second-factor') {
    slot = { stage: 'second-factor' };
    flow = await catalog.secondFactorStage();
  } else if (name.startsWith('signed-in.')) {
    const id = name.slice('signed-in.'.length);
    // A built-in flow's page (change-password) too: a client reading redirects as data is sent here for it.
    const found = catalog.signedInFlow ? await catalog.signedInFlow(req.config, id) : (req.config.flowsById.get(id) as SignedInFlowDefinition | undefined);
    if (!found) return { status: 'failed', error: new InvalidCheck(`No signed-in flow with id "${id}".`, { actual: id }) };
    slot = { signedIn: id };
    flow = found;
  } else if (name.startsWith('account.')) {
    const [id = '', providerId = ''] = name.slice('account.'.length).split('.');
    const provider = req.config.providersById.get(providerId);
    const found = provider ? await catalog.accountFlow(id, provider) : undefined;
    if (!provider || !found) return { status: 'failed', error: new InvalidCheck(`No account flow "${name}".`, { actual: name }) };
    slot = { account: { flow: found.id, provider: provider.id } };
    flow = found;
  } else {
    const provider = req.config.providersById.get(name);
    if (!provider) return { status: 'failed', error: new InvalidProvider(`No provider with id "${name}".`, { actual: name }) };
    slot = { provider: provider.id };
    flow = await catalog.flowFor(provider);
  }
  let paused: PausedFlow;
  try {
    paused = openFlow(req, slot, flow);
  } catch (err) {
    return { status: 'failed', error: err as AuthError };
  }
  const page = paused.pause?.page;
  if (!page) return { status: 'failed', error: new InvalidCheck('This paused flow shows no page.', { expected: 'a paused page', actual: paused.value }) };
  return { status: 'paused', response: page, ...slotNames(slot) };
}

/**
 * A job for a provider: fresh, or resumed from the provider's logout slot (spent whatever happens). Its own span, as
 * every run has. A job that pauses is sealed in that slot.
 */
async function jobStep(req: RequestContext, door: Extract<Door, { kind: 'job' }>, event: EventObject | undefined): Promise<DoorAnswer> {
  const { job, provider } = door;
  if (!event) return { status: 'notTaken' };
  const slot: FlowSlot = { logout: provider.id };
  let paused: PausedFlow | undefined;
  if (door.resume) {
    try {
      paused = openFlow(req, slot, job);
    } catch (err) {
      clearFlow(req, slot);
      return { status: 'failed', error: err as AuthError };
    }
    clearFlow(req, slot);
  }
  const args = door.args as never;
  const trace = door.trace ?? [];
  const runOptions: RunOptions = { keepTrace: door.trace !== undefined, ...(job.settleTimeoutMs ? { settleTimeoutMs: job.settleTimeoutMs(args) } : {}) };
  // A job's records (a back-channel logout's sessions ended, a sign-out's) name its machine and share one id.
  const id = newFlowId();
  const closeActivity = openActivityRun(req, { correlationId: id, flow: { machine: job.machine.id, version: String(job.version) }, provider: provider.id });
  let settled: Awaited<ReturnType<typeof settleMachine>>;
  try {
    settled = await inFlowSpan(
      provider.id,
      job.machine.id,
      undefined,
      (span) => settleMachine(job.machine, job.input(req, provider, args), event, paused, trace, [], span ? { ...runOptions, span } : runOptions),
      settlementOutcome,
      id,
    );
  } finally {
    await closeActivity();
  }
  switch (settled.kind) {
    case 'done':
      logJobFailure(req, settled.context);
      return { status: 'done', output: settled.output, state: settled.state };
    case 'paused':
      if (job.pausesIn !== 'logout') return { status: 'failed', error: new CallbackRouteError(`Job "${job.machine.id}" paused, which it never should.`) };
      keepFlow(req, slot);
      sealFlow(req, slot, job, settled.paused);
      return { status: 'paused', response: settled.response, slot: '', action: '' };
    case 'refused':
      return { status: 'refused', error: settled.error };
    case 'failed':
      return { status: 'failed', error: settled.error, state: settled.state };
  }
}

/** A job that ended well despite a step that failed (a provider logout that fell back to local only) logs why. */
function logJobFailure(req: RequestContext, context: unknown): void {
  const failure = (context as { failure?: { err?: unknown } } | undefined)?.failure;
  if (failure?.err instanceof Error) req.config.logger.error(failure.err);
}
