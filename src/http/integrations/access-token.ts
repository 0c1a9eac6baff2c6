// `getAccessToken`: a provider access token an app can call the provider's API with, for the signed-in user of
// any request form (h3 event v1/v2, web Request, Node/Express request). It runs the token refresh machine, which
// refreshes the token when it expires within the skew, one refresh at a time per account across instances. With
// `session.providerTokens: 'in-session-cookie'` the tokens come from (and a refresh goes back into) the session cookie.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { InvalidProvider, MissingAdapterMethods, MissingRequestContext } from '../../core/errors.js';
import { lazy } from '../../core/lazy.js';
import type { TokenRefreshOptions } from '../../flows/registry.js';
import type { TraceEntry } from '../../flows/runtime/trace.js';
import { sessionGate } from '../../session/gate.js';
import { setCookieLines, type ConfigInput } from '../auth.js';
import { createAuthRequest } from '../request.js';
import { appendNodeSetCookie, isH3V1Event } from './h3-v1.js';
import { instanceFor } from './instances.js';
import { isH3Event, isWebRequest, toRequest, type AnyRequest } from './session-helpers.js';

export type { TokenRefreshOptions } from '../../flows/registry.js';

/** Options of {@link getAccessToken}: the refresh timing (see {@link TokenRefreshOptions}), and a trace sink. */
export interface GetAccessTokenOptions extends TokenRefreshOptions {
  /** Receives the refresh machine's transitions (devtools, coverage); not needed by apps. */
  trace?: TraceEntry[];
  /**
   * Tokens in the session cookie only: where the rewritten session cookie goes when a refresh changed the tokens.
   * A fetch handler passes the `Headers` of the response it will return (required: without it the new refresh token
   * would be lost); a plain Node handler its `ServerResponse`. h3 events and Express requests (`req.res`) need none.
   */
  cookies?: Headers | ServerResponse;
}

/** Where the session cookie a refresh rewrote goes, or undefined when the request form has nowhere to put it. */
function cookieTarget(input: AnyRequest, given: Headers | ServerResponse | undefined): ((lines: string[]) => void) | undefined {
  if (given instanceof Headers) return (lines) => lines.forEach((line) => given.append('set-cookie', line));
  if (given) return (lines) => appendNodeSetCookie(given, lines);
  if (isH3Event(input)) {
    return (lines) => {
      for (const line of lines) {
        input.res.headers.append('set-cookie', line);
        (input.res as { errHeaders?: Headers }).errHeaders?.append('set-cookie', line);
      }
    };
  }
  if (isH3V1Event(input)) return (lines) => appendNodeSetCookie(input.node.res, lines);
  // Express hangs the response on the request.
  const res = isWebRequest(input) ? undefined : (input as IncomingMessage & { res?: ServerResponse }).res;
  return res ? (lines) => appendNodeSetCookie(res, lines) : undefined;
}

/**
 * A valid access token of `providerId` for the request's signed-in user, or null when nobody is signed in.
 * Refreshed (refresh-token grant) when it expires within `skewSeconds` (default 60); tokens without an expiry
 * (GitHub OAuth apps) are never refreshed. Needs an adapter with the token-refresh methods (`PostgresAdapter` has
 * them): the tokens live in its accounts table, with database or JWT sessions. Or JWT sessions with
 * `session.providerTokens: 'in-session-cookie'`: the tokens live in the sealed session cookie, a refresh rewrites it
 * (h3 events and Express requests carry it back themselves; a fetch handler passes `{ cookies: headers }`).
 *
 * Throws a `RefreshTokenError` when the provider refused the refresh (the grant was revoked, the refresh token
 * reused or expired: the user must sign in with the provider again; their session then shows
 * `error: 'RefreshTokenError'` with database sessions and with tokens in the cookie) or could not be reached; `AccountNotLinked` when the user has no account with
 * that provider.
 *
 * @example
 * // h3 / Nitro
 * app.get('/api/repos', async (event) => {
 *   const token = await getAccessToken(event, config, 'github')
 *   return fetch('https://api.github.com/user/repos', { headers: { authorization: `Bearer ${token}` } })
 * })
 */
// The refresh machine and the OAuth client load on the first call: most requests of most apps never make one.
const loadRefresh = /* @__PURE__ */ lazy(() => import('./access-token-refresh.js'));

export async function getAccessToken(input: AnyRequest, config: ConfigInput, providerId: string, options: GetAccessTokenOptions = {}): Promise<string | null> {
  const request = await toRequest(input);
  const { config: resolved } = await instanceFor(config).resolve(request);
  const req = await createAuthRequest(request, resolved, { body: false });
  const provider = resolved.providers.find((p) => p.id === providerId);
  if (!provider || (provider.type !== 'oauth' && provider.type !== 'oidc')) {
    throw new InvalidProvider(`getAccessToken: "${providerId}" is no OAuth or OIDC provider of this configuration.`, { actual: providerId });
  }
  const { trace, cookies, ...timing } = options;
  if (resolved.session.strategy === 'jwt' && resolved.session.providerTokens === 'in-session-cookie') {
    const forward = cookieTarget(input, cookies);
    if (!forward) {
      throw new MissingRequestContext(
        "getAccessToken with `session.providerTokens: 'in-session-cookie'` rewrites the session cookie when it refreshes: pass the response's headers (`{ cookies: headers }` for a fetch handler, or the Node `ServerResponse`).",
      );
    }
    // The gate hands back the token it opened (JWT sessions): the refresh reads and rewrites that one.
    const signedIn = await sessionGate(req);
    if (!signedIn.ok || !signedIn.token) return null;
    try {
      return await (await loadRefresh()).cookieAccessToken(req, provider, signedIn.userId, signedIn.token, timing, trace);
    } finally {
      // The rewritten cookie goes out with a refusal too: it carries the mark that stops further refreshes.
      forward(setCookieLines(req));
    }
  }
  // Tokens live in the accounts table, whatever the session strategy: JWT sessions with an adapter work too.
  const adapter = resolved.adapter;
  if (!adapter?.getUserAccount || !adapter.claimTokenRefresh || !adapter.readTokenRefresh || !adapter.finishTokenRefresh) {
    throw new MissingAdapterMethods('getAccessToken needs an adapter with getUserAccount, claimTokenRefresh, readTokenRefresh and finishTokenRefresh (PostgresAdapter has them).', {
      missing: ['getUserAccount', 'claimTokenRefresh', 'readTokenRefresh', 'finishTokenRefresh'],
    });
  }
  // Through the session gate: a session that ended (revoked, "signed out everywhere") gets no provider token.
  const signedIn = await sessionGate(req);
  if (!signedIn.ok) return null;
  return (await loadRefresh()).refreshedAccessToken(req, adapter, provider, signedIn.userId, timing, trace);
}
