// The doors into http/flow.ts for the routes: it loads with the first sign-in request, like the flow runtime behind
// it, so a server that only checks sessions never loads the flow layer or the pages a paused flow renders.
import type { AuthRequest } from './request.js';
import type { ResolvedProvider } from '../core/provider.js';
import type { FlowRoute } from '../flows/runtime/contract.js';

let flowLayer: Promise<typeof import('./flow.js')> | undefined;
function load(): Promise<typeof import('./flow.js')> {
  flowLayer ??= import('./flow.js').catch((err: unknown) => {
    flowLayer = undefined;
    throw err;
  });
  return flowLayer;
}

/** See {@link import('./flow.js').handleFlow}. */
export async function handleFlow(req: AuthRequest, provider: ResolvedProvider, route: FlowRoute): Promise<Response> {
  return (await load()).handleFlow(req, provider, route);
}

/** See {@link import('./flow.js').handleSecondFactor}. */
export async function handleSecondFactor(req: AuthRequest): Promise<Response> {
  return (await load()).handleSecondFactor(req);
}
