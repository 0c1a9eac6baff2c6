// The dependencies one request hands a flow (`deps`): the request, the provider, the destination, the provider's
// part of the flow store, and the signed-in session read through the session gate.
import { scopedFlowStore } from '../../core/flow-store/scoped.js';
import type { ResolvedProvider } from '../../core/provider.js';
import type { RequestContext } from '../../core/request-context.js';
import { sessionGate } from '../../session/gate.js';
import type { FlowDeps, FlowSession } from './contract.js';

/** The namespace of a provider's flow store entries: one provider's flow never reads another's. */
export function flowStoreNamespace(providerId: string): string {
  return `flow:${encodeURIComponent(providerId)}:`;
}

/**
 * The deps of one request for `provider`'s flow, as the HTTP layer and the in-process driver build them.
 *
 * @example
 * const deps = flowDeps(req, provider, callbackUrl)
 */
export function flowDeps(req: RequestContext, provider: ResolvedProvider, callbackUrl: string): FlowDeps {
  let session: Promise<FlowSession | null> | undefined;
  return {
    req,
    provider,
    callbackUrl,
    store: scopedFlowStore(req.config.flowStore, flowStoreNamespace(provider.id)),
    // Read once per request, and only when the flow asks: a flow that never acts for a signed-in user costs no read.
    session: () =>
      (session ??= sessionGate(req).then((gate) =>
        gate.ok ? { userId: gate.userId, amr: gate.verification?.amr ?? [], authTime: gate.verification?.authTime ?? null } : null,
      )),
  };
}
