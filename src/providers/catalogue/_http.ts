// HTTP helpers shared by catalogue providers whose user info takes more than one plain GET, and
// `token.conform` hooks for token endpoints that bend RFC 6749.
import type { TokenSet } from '../../core/types.js';
import type { InternalEndpoint, UserinfoRequestContext } from '../oauth.js';
import { endpointUrl } from '../oauth-normalize.js';

/**
 * Reads JSON from a provider API; a non-2xx answer throws with the status and body as evidence. It goes out as the
 * flows' own provider requests do (providers/provider-http.ts): over node:http on Node, with a deadline, and read up
 * to a size limit. Loaded on the first call: importing a preset loads none of it.
 */
export async function fetchJson<T>(url: URL | string, init: RequestInit & { headers?: Record<string, string> } = {}): Promise<T> {
  const { providerFetch, PROVIDER_REQUEST_TIMEOUT_MS } = await import('../provider-http.js');
  const response = await providerFetch()(String(url), { signal: AbortSignal.timeout(PROVIDER_REQUEST_TIMEOUT_MS), ...init, headers: { accept: 'application/json', ...init.headers } });
  if (!response.ok) {
    const body = await response.text().catch(() => '');
    throw new Error(`${init.method ?? 'GET'} ${String(url)} answered ${response.status}`, { cause: { status: response.status, body } });
  }
  return (await response.json()) as T;
}

/** `Authorization: Bearer <access token>`. */
export function bearer(tokens: TokenSet): Record<string, string> {
  return { authorization: `Bearer ${tokens.access_token ?? ''}` };
}

/** The user-info URL with its params as the query; throws when an override removed it. */
export function userinfoUrl(endpoint: InternalEndpoint): URL {
  const url = endpointUrl(endpoint);
  if (!url) throw new Error('This provider needs a userinfo URL.');
  return url;
}

async function readJsonObject(response: Response): Promise<Record<string, unknown> | undefined> {
  try {
    const body: unknown = await response.clone().json();
    return body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function jsonResponse(body: unknown, like: Response, status: number = like.status): Response {
  const headers = new Headers(like.headers);
  headers.set('content-type', 'application/json');
  // The body was decoded by fetch and is re-encoded here, so its old length and encoding no longer apply.
  headers.delete('content-length');
  headers.delete('content-encoding');
  const response = new Response(JSON.stringify(body), { status, headers });
  Object.defineProperty(response, 'url', { value: like.url });
  return response;
}

/**
 * `token.conform` for providers that report token errors with status 200 and an `error` member
 * (GitHub, Slack): re-issued as 400 so that the error is read as the OAuth error it is.
 */
export async function errorBodyAs400(response: Response): Promise<Response> {
  if (response.status !== 200) return response;
  const body = await readJsonObject(response);
  if (!body || typeof body.error !== 'string' || typeof body.access_token === 'string') return response;
  return jsonResponse(body, response, 400);
}

/** `token.conform` for providers that send `scope` as an array (Twitch) instead of a space-separated string. */
export async function scopeArrayAsString(response: Response): Promise<Response> {
  const body = await readJsonObject(response);
  if (!body || !Array.isArray(body.scope)) return response;
  return jsonResponse({ ...body, scope: body.scope.join(' ') }, response);
}

/**
 * A `token.conform` that rewrites a successful token response's JSON body with `reshape` (unwrapping an envelope,
 * filling in a field). Error answers (non-2xx, or no JSON object) pass through for oauth4webapi to report.
 *
 * @example
 * token: { url, conform: reshapeTokens((body) => (body.data as object[])[0]) }
 */
export function reshapeTokens(reshape: (body: Record<string, unknown>) => unknown): (response: Response) => Promise<Response> {
  return async (response) => {
    if (!response.ok) return response;
    const body = await readJsonObject(response);
    if (!body) return response;
    const shaped = reshape(body);
    return shaped && typeof shaped === 'object' ? jsonResponse(shaped, response) : response;
  };
}

/**
 * `token.conform` for providers whose token response has no `token_type` (Figma, ClickUp, Foursquare): RFC 6749
 * requires it, so the bearer type their APIs take is filled in.
 */
export const withTokenType = /* @__PURE__ */ reshapeTokens((body) => (typeof body.token_type === 'string' ? body : { ...body, token_type: 'bearer' }));

/**
 * A `userinfo.request` for APIs that take the access token as a query parameter (`?oauth_token=`) rather than
 * an `Authorization` header. The URL's configured params stay.
 *
 * @example
 * userinfo: { url: 'https://api.foursquare.com/v2/users/self', params: { v: '20250101' }, request: tokenInQuery('oauth_token') }
 */
export function tokenInQuery(param: string): (context: UserinfoRequestContext) => Promise<Record<string, any>> {
  return ({ tokens, provider }) => {
    const url = userinfoUrl(provider.userinfo);
    url.searchParams.set(param, String(tokens.access_token ?? ''));
    return fetchJson<Record<string, any>>(url);
  };
}

// Created on first use, so that importing a preset leaves nothing behind at module level.
let warned: Set<string> | undefined;

/** Warns once per process that a deprecated preset id is in use, naming its successor. */
export function warnDeprecatedPreset(id: string, successor: string): void {
  warned ??= new Set();
  if (warned.has(id)) return;
  warned.add(id);
  console.warn(`[authchart][warn][deprecated-provider] The "${id}" provider is deprecated; use ${successor} instead.`);
}

/** The User-Agent sent to provider APIs that refuse requests without one (Trakt, Wikimedia). */
export const USER_AGENT = 'authchart';
