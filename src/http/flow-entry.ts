// The doors into http/flow.ts for the routes: it loads with the first sign-in request, like the flow runtime behind
// it, so a server that only checks sessions never loads the flow layer or the pages a paused flow renders.
import { lazy } from '../core/lazy.js';
import type { ResolvedProvider } from '../core/provider.js';
import type { FlowRoute } from '../flows/runtime/contract.js';
import type { SignedInRoute } from '../flows/runtime/signed-in.js';
import type { AuthRequest } from './request.js';

const load = lazy(() => import('./flow.js'));

/** See {@link import('./flow.js').handleFlow}. */
export async function handleFlow(req: AuthRequest, provider: ResolvedProvider, route: FlowRoute, start?: { link: { userId: string } }): Promise<Response> {
  return (await load()).handleFlow(req, provider, route, start);
}

/** See {@link import('./flow.js').pausedPageRoute}. */
export async function pausedPageRoute(req: AuthRequest, slot: string): Promise<Response> {
  return (await load()).pausedPageRoute(req, slot);
}

/** See {@link import('./flow.js').signedInFlowRoute}. */
export async function signedInFlowRoute(req: AuthRequest, id: string, route: SignedInRoute): Promise<Response> {
  return (await load()).signedInFlowRoute(req, id, route);
}
