// The routes that step through the runtime's door for a provider's flow, a paused flow's page, and an app's
// signed-in flows. They check what HTTP owns (CSRF, the throttle, the callback URL) and answer through respond();
// the door runs the machine and keeps its cookie slot.
import { InvalidProvider, UnknownAction } from '../core/errors.js';
import { lazy } from '../core/lazy.js';
import type { ResolvedProvider } from '../core/provider.js';
import { flowFor, step } from '../flows/registry.js';
import type { FlowRoute } from '../flows/runtime/contract.js';
import type { SignedInFlowDefinition, SignedInRoute } from '../flows/runtime/signed-in.js';
import { respond } from './answer.js';
import { resolveCallbackUrl } from './callback-url.js';
import { requireCsrf } from './csrf.js';
import { flowBrowser } from './inspect-trace.js';
import type { AuthRequest } from './request.js';
import { rememberSentTo, rememberTypedIdentifier } from './signin-memory.js';
import { sweepIfDue } from './sweep.js';


// The throttle loads on the first sign-in request of a configuration that throttles.
const loadThrottle = lazy(() => import('./throttle.js'));

/** Development only: the inspector's id for this browser, minted when a run starts a flow. */
const inspectorBrowser = (req: AuthRequest) => (fresh: boolean) => flowBrowser(req, { mint: fresh });

/**
 * Runs a provider's flow for a route. `link` (from `POST {basePath}/link/:provider`) names the signed-in user the flow
 * is bound to: what the flow proves is added to that user instead of signing anyone in.
 */
export async function handleFlow(req: AuthRequest, provider: ResolvedProvider, route: FlowRoute, start?: { link: { userId: string } }): Promise<Response> {
  const flow = await flowFor(provider);
  // Checked before anything else, so a forged request leaves no trace (not even a callback-url cookie).
  if (req.method === 'POST' && (flow.csrf ?? ['signin']).includes(route)) requireCsrf(req);
  // Now and then, expired tokens, challenges, sessions and counters go (in the background).
  void sweepIfDue(req.config);
  // Counted before anything runs: a request over a limit sends, stores and sets nothing.
  const gate = req.config.throttle ? await (await loadThrottle()).throttleSignIn(req, provider, route) : undefined;
  if (gate instanceof Response) return gate;
  const callbackUrl = await resolveCallbackUrl(req);
  const door = { kind: 'signIn' as const, provider, route, callbackUrl, ...(start ? { link: start.link.userId } : {}) };
  const answer = await step(req, door, undefined, { browser: inspectorBrowser(req) });
  // The throttle gives a proven first factor its point back (signed in, or on to the second-factor check).
  await gate?.settle(answer.status === 'signedIn' || (answer.status === 'paused' && answer.slot === 'second-factor'));
  if (answer.status === 'failed' && answer.typed) rememberTypedIdentifier(req, provider);
  if (answer.status === 'redirected' && provider.type === 'email' && route === 'signin') rememberSentTo(req);
  return respond(req, answer, { providerId: provider.id, notTaken: route === 'signin' ? 'signInPage' : 'unknownAction' });
}

/**
 * `GET {basePath}/flow/:slot`: the page a paused flow shows (the e-mail code page, the second-factor check, a
 * signed-in flow's step), read from its flow cookie. It only reads: the flow is neither run nor resealed, so showing
 * the page again and again advances nothing, spends nothing and sends nothing.
 */
export async function pausedPageRoute(req: AuthRequest, slot: string): Promise<Response> {
  return respond(req, await step(req, { kind: 'page', slot }));
}

/**
 * An app's signed-in flow: `POST {basePath}/flows/:id/start` (CSRF-checked) and `GET|POST {basePath}/flows/:id`
 * (a POST CSRF-checked). Signed out, or below the flow's level: the sign-in page or the factor check, coming back.
 */
export async function signedInFlowRoute(req: AuthRequest, id: string, route: SignedInRoute): Promise<Response> {
  const flow = req.config.flowsById.get(id) as SignedInFlowDefinition | undefined;
  if (!flow) throw new InvalidProvider(`No signed-in flow with id "${id}".`, { actual: id });
  if (route === 'start' && req.method !== 'POST') throw new UnknownAction(`Signed-in flow "${id}" starts with a POST.`);
  if (req.method === 'POST') requireCsrf(req);
  void sweepIfDue(req.config);
  const callbackUrl = await resolveCallbackUrl(req);
  return respond(req, await step(req, { kind: 'signedIn', flow, route, callbackUrl }, undefined, { browser: inspectorBrowser(req) }));
}
