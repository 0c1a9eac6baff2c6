// The per-request services a flow's actors run against: the request context and the provider.
// Actors get them through closures built by `FlowDefinition.implement`, never through context,
// so nothing here is ever persisted in a flow cookie.
import type { AuthRequest } from '../http/request.js';
import type { ResolvedProvider } from '../core/provider.js';

export interface FlowServices {
  req: AuthRequest;
  provider: ResolvedProvider;
  /** The validated destination after sign-in. */
  callbackUrl: string;
}
