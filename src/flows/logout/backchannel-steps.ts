// The I/O of the back-channel logout machine: verifying a logout token (OpenID Connect Back-Channel Logout 1.0,
// section 2.6) against the provider's JWKS with jose, recording its jti once across instances, and ending the
// sessions it names: database rows directly, JWT sessions through "sessions valid after".
import { createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import { AdapterError, InvalidCheck } from '../../core/errors.js';
import type { RequestContext } from '../../core/request-context.js';
import type { InternalOAuthProvider } from '../../providers/oauth.js';
import { authorizationServer } from '../../providers/oauth-server.js';
import { usersOfProviderSession, useLogoutTokenInStore } from '../../session/provider-sessions.js';
import { endSessionsBefore, keepsValidAfter } from '../../session/valid-after.js';
import { noteActivity } from '../../activity/run.js';

export const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';

export interface LogoutDeps {
  req: RequestContext;
  provider: InternalOAuthProvider;
  now: () => number;
  /** A logout token issued longer ago than this is refused (default 300 s). */
  maxAgeSeconds: number;
}

/** The claims of a verified logout token that the rest of the machine uses. */
export interface LogoutClaims {
  iss: string;
  jti: string;
  /** Seconds; the used jti is remembered until then. */
  exp: number;
  /** Seconds: when the provider issued the logout (JWT sessions found through the store end as of then). */
  iat: number;
  sid?: string;
  sub?: string;
}

// Signatures only with asymmetric keys from the provider's JWKS: never `none`, never an HMAC keyed with something public.
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

const jwksByUri = new Map<string, ReturnType<typeof createRemoteJWKSet>>();
function jwksOf(uri: string): ReturnType<typeof createRemoteJWKSet> {
  let set = jwksByUri.get(uri);
  if (!set) {
    set = createRemoteJWKSet(new URL(uri));
    jwksByUri.set(uri, set);
  }
  return set;
}

function refused(message: string, cause: Record<string, unknown> = {}): InvalidCheck {
  return new InvalidCheck(`Logout token refused: ${message}`, { step: 'logout_token', ...cause });
}

/** Verifies the logout token; each failed check is an InvalidCheck naming it (expected vs actual). */
export async function verifyLogoutToken(deps: LogoutDeps, token: unknown): Promise<LogoutClaims> {
  if (typeof token !== 'string' || token.length === 0 || token.length > 16_384) throw refused('no logout_token of a plausible size', { expected: 'logout_token', actual: typeof token });
  const { provider } = deps;
  const as = await authorizationServer(provider).catch((err: unknown) => {
    throw refused(`the provider's metadata could not be loaded (${(err as Error).message})`, { err: err as Error });
  });
  if (!as.jwks_uri) throw refused('the provider publishes no jwks_uri', { expected: 'jwks_uri' });
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, jwksOf(as.jwks_uri), {
      issuer: as.issuer,
      audience: provider.clientId,
      algorithms: ALGORITHMS,
      maxTokenAge: deps.maxAgeSeconds,
      clockTolerance: 60,
      currentDate: new Date(deps.now()),
    }));
  } catch (err) {
    // Sorted by jose's error code, never its message text.
    const code = (err as { code?: string }).code;
    const claim = err instanceof joseErrors.JWTClaimValidationFailed ? err.claim : undefined;
    throw refused(`${code ?? 'invalid'}${claim ? ` (${claim})` : ''}`, { err: err as Error, code, claim });
  }
  const events = payload.events as Record<string, unknown> | undefined;
  const event = events && typeof events === 'object' && !Array.isArray(events) ? events[BACKCHANNEL_LOGOUT_EVENT] : undefined;
  if (!event || typeof event !== 'object' || Array.isArray(event)) throw refused('no back-channel logout event', { claim: 'events', expected: BACKCHANNEL_LOGOUT_EVENT, actual: events });
  // A nonce would make it look like an ID token: a token that could be one is never accepted as a logout.
  if ('nonce' in payload) throw refused('it carries a nonce', { claim: 'nonce', expected: 'absent', actual: 'present' });
  const sid = typeof payload.sid === 'string' && payload.sid ? payload.sid : undefined;
  const sub = typeof payload.sub === 'string' && payload.sub ? payload.sub : undefined;
  if (!sid && !sub) throw refused('neither sid nor sub', { claim: 'sid', expected: 'sid or sub' });
  if (typeof payload.jti !== 'string' || !payload.jti) throw refused('no jti', { claim: 'jti', expected: 'a token id' });
  if (typeof payload.iat !== 'number') throw refused('no iat', { claim: 'iat' });
  const exp = typeof payload.exp === 'number' ? payload.exp : payload.iat + deps.maxAgeSeconds;
  return { iss: String(payload.iss), jti: payload.jti, iat: payload.iat, exp: Math.max(exp, payload.iat + deps.maxAgeSeconds) + 60, sid, sub };
}

function adapterFailure(method: string, err: unknown): AdapterError {
  return err instanceof AdapterError ? err : new AdapterError(err instanceof Error ? err : new Error(String(err)), { method });
}

/** Records the token's jti as used; false when it was used before (a replay). */
export async function useJti(deps: LogoutDeps, claims: LogoutClaims): Promise<boolean> {
  try {
    const adapter = deps.req.config.adapter;
    if (!adapter?.useLogoutToken) return await useLogoutTokenInStore(deps.req, claims.iss, claims.jti, new Date(claims.exp * 1000));
    return await adapter.useLogoutToken(claims.iss, claims.jti, new Date(claims.exp * 1000));
  } catch (err) {
    throw adapterFailure('useLogoutToken', err);
  }
}

/** Ends the sessions of every user the token names; how many users. */
export async function endNamedSessions(deps: LogoutDeps, claims: LogoutClaims): Promise<number> {
  const { req, provider } = deps;
  const adapter = req.config.adapter;
  let users: string[];
  try {
    const match = { sid: claims.sid, sub: claims.sub };
    const fromAdapter = typeof adapter?.findProviderSessionUsers === 'function';
    users = fromAdapter ? await adapter!.findProviderSessionUsers!(provider.id, match) : await usersOfProviderSession(req, provider.id, match);
    // Found through the store (JWT sessions, no adapter), sessions end as of the logout's iat: a replayed copy the
    // store's jti check let through ends no session begun since.
    const at = new Date(fromAdapter ? deps.now() : Math.min(deps.now(), (claims.iat + 1) * 1000));
    for (const userId of users) {
      if (adapter?.deleteSessions) await adapter.deleteSessions(userId);
      if (keepsValidAfter(req)) await endSessionsBefore(req, userId, at);
    }
  } catch (err) {
    throw adapterFailure('endSessions', err);
  }
  // On record once they have ended, one per user, by the provider that asked (a record that fails is logged).
  for (const userId of users) await noteActivity(req, { kind: 'session.ended', userId, provider: provider.id, method: provider.type, reason: 'backchannelLogout' });
  return users.length;
}
