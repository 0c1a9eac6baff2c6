// The I/O of RP-initiated logout: the signed-in user's ID token from the provider (the accounts table) and the
// provider's end_session_endpoint (discovery).
import type { RequestContext } from '../../core/request-context.js';
import type { InternalOAuthProvider } from '../../providers/oauth.js';
import { authorizationServer } from '../../providers/oauth-server.js';

export interface RpLogoutDeps {
  req: RequestContext;
  provider: InternalOAuthProvider;
  userId: string;
}

/** Where to send the browser to end the provider's session, and what to send. */
export interface EndSession {
  endpoint: string;
  idToken: string;
  clientId: string;
  postLogoutRedirectUri: string;
}

/** The provider session to end, or null when there is none to end (no ID token stored, or no end_session_endpoint). */
export async function findEndSession(deps: RpLogoutDeps): Promise<EndSession | null> {
  const { req, provider, userId } = deps;
  const account = await req.config.adapter?.getUserAccount?.(userId, provider.id);
  if (!account || typeof account.id_token !== 'string' || !account.id_token) return null;
  const as = await authorizationServer(provider);
  if (!as.end_session_endpoint) return null;
  return { endpoint: as.end_session_endpoint, idToken: account.id_token, clientId: provider.clientId ?? '', postLogoutRedirectUri: `${req.authUrl}/signout-callback/${provider.id}` };
}
