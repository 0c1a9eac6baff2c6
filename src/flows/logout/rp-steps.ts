// The I/O of RP-initiated logout: the signed-in user's ID token from the provider (the accounts table), the
// provider's end_session_endpoint (discovery), and the state sent, kept in the flow store until its one return.
import { createHash } from 'node:crypto';
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

/** The flow store key of a sent state: its hash (what the store holds is never the value a browser brings back). */
const stateKey = (state: string) => `rp-logout:${createHash('sha256').update(state).digest('base64url')}`;

/** Keeps the state sent to the provider until the browser comes back with it (at most `ttlMs`). */
export async function keepState(deps: RpLogoutDeps, state: string, ttlMs: number): Promise<void> {
  await deps.req.config.flowStore.set(stateKey(state), '1', Math.ceil(ttlMs / 1000));
}

/**
 * Takes the state back, atomically: true for the first return that brings it, false for any later one (a replayed
 * pending-sign-out cookie) and for a state never kept.
 */
export async function takeState(deps: RpLogoutDeps, state: string): Promise<boolean> {
  return (await deps.req.config.flowStore.take(stateKey(state))) !== null;
}
