// The redirect proxy (`redirectProxyUrl`): a preview deployment sends the provider a redirect_uri on a stable one,
// and a `state` that says, sealed with the shared secret, where the sign-in really lives. The stable deployment
// forwards the provider's answer there. Only a state this app's secret sealed can name a target, the preview seals
// only an origin its configuration names (never a believed Host), and the proxy forwards only to origins its own
// configuration lists: no open redirect, and no code sent to a host a forged header named.
import { InvalidCheck, JWTSessionError, UntrustedHost } from '../../core/errors.js';
import { matchesOrigin } from '../../core/hosts.js';
import type { RequestContext } from '../../core/request-context.js';
import { decodeSync, encodeSync } from '../../session/jwt.js';

/**
 * The key-derivation salt of a proxied state. Fixed, not a cookie name: the preview and the stable deployment
 * must derive the same key (they share the secret, not necessarily their cookie names or protocol).
 */
const PROXY_STATE_SALT = 'authchart.redirect-proxy-state';

/** A proxied state lives as long as a sign-in may wait for its callback: 15 minutes. */
const PROXY_STATE_MAX_AGE = 15 * 60;

/** The claims of a proxied state: the callback URL the sign-in started on, and its provider. */
interface ProxyStateClaims {
  /** `{preview origin}{basePath}/callback/{provider id}`. */
  target: string;
  /** Provider id: a state sealed for one provider is never forwarded from another's callback. */
  provider: string;
}

/**
 * True when this request is served by the deployment `proxyUrl` names (Auth.js's `isOnRedirectProxy`): its
 * sign-ins need no forwarding, and it is the one that forwards the others'.
 *
 * @example
 * isOnRedirectProxy(req, 'https://auth.example.com/auth') // true on https://auth.example.com
 */
export function isOnRedirectProxy(req: RequestContext, proxyUrl: string): boolean {
  return URL.parse(proxyUrl)?.origin === req.origin;
}

/**
 * This deployment's callback for `providerId`, on an origin its configuration names: AUTH_URL (or `url`), or a
 * host the `trustHost` list allowed. With `trustHost: true` and no AUTH_URL the origin is whatever Host or
 * X-Forwarded-Host said, so it is refused (UntrustedHost): sealed into a proxied state, a forged header would
 * send the provider's code to the forger.
 */
function configuredCallback(req: RequestContext, providerId: string): string {
  const { url, trustedHosts, basePath } = req.config;
  if (url) return `${url.origin}${basePath}/callback/${providerId}`;
  if (trustedHosts) return `${req.authUrl}/callback/${providerId}`;
  throw new UntrustedHost(
    'A sign-in behind a redirect proxy needs this deployment\'s origin from configuration: set AUTH_URL, or list the hosts in `trustHost` (e.g. ["*.preview.example.com"]). `trustHost: true` believes any Host header.',
    { step: 'redirect proxy' },
  );
}

/**
 * The `state` of a sign-in started on a deployment behind a redirect proxy: an encrypted, 15-minute token naming
 * this deployment's callback URL (on its configured origin, see configuredCallback) and the provider, with a
 * fresh `jti` as its random part. Unforgeable and unreadable without the secret.
 *
 * @example
 * sealProxyState(req, 'github') // 'eyJhbGciOiJkaXIi...' (a JWE), sent as state=
 */
export function sealProxyState(req: RequestContext, providerId: string): string {
  const claims: ProxyStateClaims = { target: configuredCallback(req, providerId), provider: providerId };
  return encodeSync({ token: claims, secret: req.config.secrets, salt: PROXY_STATE_SALT, maxAge: PROXY_STATE_MAX_AGE });
}

/** A compact JWE has five base64url parts; a plain random state (a sign-in on the proxy itself) has one. */
const JWE_SHAPE = /^[\w-]+\.[\w-]*\.[\w-]+\.[\w-]+\.[\w-]+$/;

/**
 * Where the redirect proxy forwards a provider's answer, or undefined when it is this deployment's own (a plain
 * state, or a sealed one naming this origin). Throws InvalidCheck for a state that looks sealed but is not ours
 * (forged, tampered, expired, or sealed with another secret), names another provider, names a target that is
 * not a provider callback over http(s), or names an origin `redirectProxyOrigins` does not list.
 *
 * @example
 * proxyTarget(req, 'github', { code, state, iss }) // 'https://pr-7.preview.example.com/auth/callback/github?code=...&state=...&iss=...'
 */
export function proxyTarget(req: RequestContext, providerId: string, params: Record<string, string>): string | undefined {
  const { state } = params;
  if (typeof state !== 'string' || !JWE_SHAPE.test(state)) return undefined;
  let claims: Partial<ProxyStateClaims>;
  try {
    claims = decodeSync<Partial<ProxyStateClaims>>({ token: state, secret: req.config.secrets, salt: PROXY_STATE_SALT }) ?? {};
  } catch (err) {
    const reason = err instanceof JWTSessionError ? (err.cause as { reason?: string } | undefined)?.reason : undefined;
    throw new InvalidCheck(`The redirect proxy refused a state it cannot open (${reason ?? 'unreadable'}).`, { err: err as Error, step: 'redirect proxy', actual: reason });
  }
  if (claims.provider !== providerId) {
    throw new InvalidCheck('The redirect proxy refused a state sealed for another provider.', { step: 'redirect proxy', expected: providerId, actual: claims.provider });
  }
  const target = typeof claims.target === 'string' ? URL.parse(claims.target) : null;
  if (!target || (target.protocol !== 'https:' && target.protocol !== 'http:') || !target.pathname.endsWith(`/callback/${providerId}`) || target.search || target.hash) {
    throw new InvalidCheck('The redirect proxy refused a state whose target is not a provider callback.', { step: 'redirect proxy', actual: claims.target });
  }
  if (target.origin === req.origin) return undefined;
  const allowed = req.config.redirectProxyOrigins;
  if (!allowed || !matchesOrigin(allowed, target.origin)) {
    throw new InvalidCheck('The redirect proxy refused to forward to an origin not on `redirectProxyOrigins`.', { step: 'redirect proxy', expected: allowed?.patterns ?? [], actual: target.origin });
  }
  const forwarded = new URL(target);
  for (const [key, value] of Object.entries(params)) forwarded.searchParams.append(key, value);
  return forwarded.href;
}
