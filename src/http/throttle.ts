// The throttle at the door of every sign-in route: before a flow runs, count this request against the limits it
// falls under (the client's sign-in requests; failed passwords per account and client; magic links per address and
// client; WebAuthn ceremonies per client); over a limit, answer 429 with Retry-After and run nothing.
import { noteActivity } from '../activity/run.js';
import { messagesFor } from '../core/messages/request.js';
import { clientAddress as requestClientAddress, addressUnit } from '../core/client-address.js';
import type { InternalConfig } from '../core/config.js';
import { accountKey, identifierField, submittedIdentifier, type IdentifiedProvider } from '../core/credentials-identifier.js';
import { RateLimited, ServiceUnavailable } from '../core/errors.js';
import { dispatchEvent } from '../core/events.js';
import { lazy } from '../core/lazy.js';
import { isOutage } from '../core/store-deadline.js';
import type { ResolvedProvider } from '../core/provider.js';
import type { ThrottleLimit } from '../core/throttle/options.js';
import { Throttle, type ThrottleRefusal } from '../core/throttle/throttle.js';
import { memoryThrottleStore } from '../core/throttle/store.js';
import type { FlowRoute } from '../flows/runtime/contract.js';
import { loadErrorPage } from './pages/load.js';
import { pageNonce, type AuthRequest } from './request.js';
import { errorPageUrl, html, json, redirectsAsData, wantsJson } from './response.js';

/**
 * What a counted request leaves to do once its flow has run: give back the points of a successful sign-in, and every
 * point of an attempt that ended in an outage (`error` a ServiceUnavailable or a store that could not be reached):
 * the store's failure is never the client's, so no outage counts towards a lock-out.
 */
export interface ThrottleGate {
  settle(signedIn: boolean, error?: unknown): Promise<void>;
}

const throttles = new WeakMap<InternalConfig, Throttle>();
// Configurations already told that their requests carry no client address (said once, not per request).
const unknownClientWarned = new WeakSet<InternalConfig>();

/** The throttle of a configuration (made once; the memory store when none is configured). */
export function throttleOf(config: InternalConfig): Throttle | undefined {
  const settings = config.throttle;
  if (!settings) return undefined;
  let throttle = throttles.get(config);
  if (!throttle) {
    throttle = new Throttle(settings, settings.store ?? memoryThrottleStore(), config.secrets[0], config.logger);
    throttles.set(config, throttle);
  }
  return throttle;
}

const MAX_KEY = 320;

// The e-mail flow's address normaliser, loaded by the first magic-link request only: a credentials-only app's
// sign-in loads no e-mail code.
const loadEmailSteps = lazy(() => import('../providers/email-identifier.js'));
type NormalizeAddress = (provider: ResolvedProvider, raw: string) => string;

/**
 * The per-account key of a credentials attempt: the provider's identifier field, normalised as `authorize` will
 * get it, then folded (core/credentials-identifier.ts). Throws InvalidRequest (400, nothing counted, nothing run)
 * when the form has no one usable identifier; undefined when the provider names no account (`identifier: false`).
 */
function credentialsAccount(req: AuthRequest, provider: ResolvedProvider): string | undefined {
  const field = identifierField(provider as IdentifiedProvider);
  if (!field) return undefined;
  return accountKey(submittedIdentifier(req.body, field));
}

/** The address a magic-link request is for, as the flow will store it; undefined when it is not one. */
function emailAddress(req: AuthRequest, provider: ResolvedProvider, normalizeAddress: NormalizeAddress): string | undefined {
  const raw = req.body.email;
  if (typeof raw !== 'string' || raw.length > MAX_KEY) return undefined;
  try {
    return normalizeAddress(provider, raw);
  } catch {
    return undefined; // the flow refuses it as an invalid address; the client limit still counted the request
  }
}

/**
 * A request for a magic link (the only one whose limits key on an e-mail address): a sign-in, or "send a new code"
 * from the code page, which mails like one and names its address (the flow refuses any but its own).
 */
function isMagicLinkRequest(req: AuthRequest, provider: ResolvedProvider, route: FlowRoute): boolean {
  if (req.method !== 'POST' || provider.type !== 'email') return false;
  return route === 'signin' || (route === 'callback' && req.body.action === 'resend');
}

/** The limits this request counts against, with the key of each, in the order they are checked. */
function hitsFor(req: AuthRequest, provider: ResolvedProvider, route: FlowRoute, client: string | undefined, normalizeAddress: NormalizeAddress | undefined): [ThrottleLimit, string][] {
  const hits: [ThrottleLimit, string][] = [];
  if (client) hits.push(['signIn', client]);
  if (req.method === 'POST' && route === 'callback' && provider.type === 'credentials') {
    if (client) hits.push(['credentialsClient', client]);
    const account = credentialsAccount(req, provider);
    if (account !== undefined) hits.push(['credentialsAccount', `${provider.id}\0${account}`]);
  } else if (normalizeAddress && isMagicLinkRequest(req, provider, route)) {
    if (client) hits.push(['emailClient', client]);
    const address = emailAddress(req, provider, normalizeAddress);
    if (address !== undefined) hits.push(['emailAddress', address]);
  } else if (route === 'options' && provider.type === 'webauthn' && client) {
    hits.push(['webauthnOptions', client]);
  }
  return hits;
}

/** Whether the client reads answers as data (redirects as data, the WebAuthn options route, an Accept of JSON). */
function answersJson(req: AuthRequest, route: FlowRoute): boolean {
  return route === 'options' || redirectsAsData(req) || wantsJson(req);
}

/**
 * 429 with Retry-After: the built-in page, or `{ error, url, retryAfter }` as JSON. When the store is down and the
 * limit fails closed it is no "too many attempts": 503 `ServiceUnavailable`, with its own page and message.
 */
async function refusedResponse(req: AuthRequest, route: FlowRoute, refusal: ThrottleRefusal): Promise<Response> {
  const error = refusal.unavailable
    ? new ServiceUnavailable(`The throttle store is down; the "${refusal.limit}" limit fails closed.`, { limit: refusal.limit })
    : new RateLimited(`Over the "${refusal.limit}" limit.`, { limit: refusal.limit });
  error.retryAfter = refusal.retryAfter;
  const status = refusal.unavailable ? 503 : 429;
  req.headers.set('retry-after', String(refusal.retryAfter));
  if (answersJson(req, route)) {
    return json(req, { error: error.type, url: errorPageUrl(req, error), retryAfter: refusal.retryAfter }, status, { noCache: true });
  }
  const page = (await loadErrorPage()).renderError({ error: error.type, theme: req.config.theme, basePath: req.config.basePath, signinUrl: `${req.authUrl}/signin`, homeUrl: req.origin, nonce: pageNonce(req), i18n: await messagesFor(req) });
  return html(req, page.html, status);
}

/**
 * Counts one answer at the second-factor stage against the user's limit (all their pending sign-ins together). A
 * right answer gives its point back when settled; undefined when throttling is off.
 *
 * @example
 * const gate = await throttleSecondFactor(req, provider, userId)
 */
export async function throttleSecondFactor(req: AuthRequest, providerId: string, userId: string): Promise<Response | ThrottleGate | undefined> {
  const throttle = throttleOf(req.config);
  if (!throttle || !req.config.throttle) return undefined;
  const refusal = await throttle.hit('secondFactorAccount', userId);
  if (refusal) {
    await noteActivity(req, { kind: 'rateLimit.hit', userId, provider: providerId, reason: 'secondFactorAccount' });
    await dispatchEvent(req.config.events, req.config.logger, 'rateLimited', { limit: 'secondFactorAccount', provider: providerId, retryAfter: refusal.retryAfter, storeDown: refusal.unavailable });
    return refusedResponse(req, 'callback', refusal);
  }
  return {
    async settle(passed, error) {
      if (passed || isOutage(error)) await throttle.refund('secondFactorAccount', userId);
    },
  };
}

/**
 * Counts a sign-in request against its limits. Resolves with the refusal response when one is over its limit,
 * else with the gate to settle once the flow has run; undefined when throttling is off.
 *
 * @example
 * const gate = await throttleSignIn(req, provider, 'callback')
 * if (gate instanceof Response) return gate
 */
export async function throttleSignIn(req: AuthRequest, provider: ResolvedProvider, route: FlowRoute): Promise<Response | ThrottleGate | undefined> {
  const normalizeAddress = isMagicLinkRequest(req, provider, route) ? (await loadEmailSteps()).normalizeAddress : undefined;
  return throttleHits(req, provider, route, (client) => hitsFor(req, provider, route, client, normalizeAddress));
}

/**
 * Counts a request of an account flow (sign-up): every one against the client's sign-in requests; a form that names
 * an address (each sends a mail) as a magic-link request is counted, per client and per address; any other answer (a
 * typed code) as a credentials attempt of the client. A link from a mail counts as a sign-in request only.
 *
 * @example
 * const gate = await throttleAccountFlow(req, provider, 'submit')
 */
export async function throttleAccountFlow(req: AuthRequest, provider: ResolvedProvider, route: 'submit' | 'link'): Promise<Response | ThrottleGate | undefined> {
  const { normalizeAddress } = await loadEmailSteps();
  return throttleHits(req, provider, 'callback', (client) => {
    const hits: [ThrottleLimit, string][] = client ? [['signIn', client]] : [];
    if (route !== 'submit') return hits;
    if (typeof req.body.email === 'string') {
      if (client) hits.push(['emailClient', client]);
      const address = emailAddress(req, provider, normalizeAddress);
      if (address !== undefined) hits.push(['emailAddress', address]);
    } else if (client) {
      hits.push(['credentialsClient', client]);
    }
    return hits;
  });
}

/** Counts the request against `hitsOf(client)`, in order: the refusal response of the first over its limit, else the gate. */
async function throttleHits(req: AuthRequest, provider: ResolvedProvider, route: FlowRoute, hitsOf: (client: string | undefined) => [ThrottleLimit, string][]): Promise<Response | ThrottleGate | undefined> {
  const throttle = throttleOf(req.config);
  const settings = req.config.throttle;
  if (!throttle || !settings) return undefined;
  const address = settings.clientAddress ? settings.clientAddress(req.request) : requestClientAddress(req.request, req.config.trustHost);
  const client = address ? addressUnit(address, settings.ipv6Prefix) : undefined;
  if (!client && !unknownClientWarned.has(req.config)) {
    unknownClientWarned.add(req.config);
    req.config.logger.warn('throttle-no-client-address', 'A sign-in request carries no client address (no socket address, no trusted X-Forwarded-For): only the per-account and per-address limits apply. Give `throttle.clientAddress(request)`.');
  }
  const hits = hitsOf(client);
  for (const [limit, key] of hits) {
    const refusal = await throttle.hit(limit, key, limit === 'signIn' ? undefined : provider.id);
    if (refusal) {
      await noteActivity(req, { kind: 'rateLimit.hit', userId: null, provider: provider.id, reason: limit });
      await dispatchEvent(req.config.events, req.config.logger, 'rateLimited', {
        limit,
        provider: limit === 'signIn' ? undefined : provider.id,
        clientAddress: address,
        retryAfter: refusal.retryAfter,
        storeDown: refusal.unavailable,
      });
      return refusedResponse(req, route, refusal);
    }
  }
  return {
    async settle(signedIn, error) {
      // An outage gives every point back: the attempt never reached a decision about the client.
      const outage = isOutage(error);
      if (!signedIn && !outage) return;
      // A right password costs nothing: only failures count against the account and the client. The refunds go
      // out together (one round trip to a shared store, not two).
      const refunds = outage ? hits : hits.filter(([limit]) => limit === 'credentialsAccount' || limit === 'credentialsClient');
      await Promise.all(refunds.map(([limit, key]) => throttle.refund(limit, key, limit === 'signIn' ? undefined : provider.id)));
    },
  };
}
