// Everything authchart needs to know about one HTTP request: where it came from, what it carries,
// and the cookies and headers its response will get. Bodies are read with a size limit.
import type { InternalConfig } from '../core/config.js';
import { defaultCookies, mergeCookies, type CookiesOptions } from '../core/cookies.js';
import { InvalidRequest, UntrustedHost } from '../core/errors.js';
import { isTrustedHost, parseHost } from '../core/hosts.js';
import { readTextUpTo } from '../core/read-limited.js';
import { RequestFacts, type RequestContext } from '../core/request-context.js';
export { bodyString } from '../core/request-context.js';

/** Bodies larger than this are refused with 413. Auth forms are a few hundred bytes. */
export const MAX_BODY_BYTES = 64 * 1024;

/** The request context as the HTTP layer builds it (core/request-context.ts). */
export type AuthRequest = RequestContext;

export class BodyTooLarge extends InvalidRequest {
  static override type = 'BodyTooLarge';
  /** The body was a page's form submitted by a browser navigation: it is answered with a page, not JSON. */
  fromPage = false;
}

/** A form a browser submits from a page (a navigation asking for HTML), as opposed to a script's fetch. */
function isPageForm(request: Request): boolean {
  const mode = request.headers.get('sec-fetch-mode');
  if (mode) return mode === 'navigate';
  return (request.headers.get('content-type') ?? '').startsWith('application/x-www-form-urlencoded') && (request.headers.get('accept') ?? '').includes('text/html');
}

/**
 * A request whose host is malformed or not on the `trustHost` allow-list: the client's fault, answered 400. Its
 * `type` stays `UntrustedHost`; the subclass only tells it apart from a deployment that trusts no host at all.
 */
export class RefusedHost extends UntrustedHost {}

// URLs an integration parsed already for a request it built itself (the Node bridge reads the path to decide whether
// the request is authchart's): the request context reuses that parse instead of doing it again.
const parsedUrls = new WeakMap<Request, URL>();

/**
 * `request.url`, parsed. Node servers build it from the Host header, so a Host no URL can hold (`host:99999`) makes
 * it unparseable: that is a refused host too, not a server error.
 */
export function requestUrl(request: Request): URL {
  const known = parsedUrls.get(request);
  if (known) return known;
  try {
    return new URL(request.url);
  } catch {
    throw new RefusedHost('The request URL cannot be parsed: its Host header is malformed.');
  }
}

/**
 * {@link requestUrl}, kept for later reads of the same request. Only for a Request the caller built itself and
 * hands on unchanged (the Node bridge's wrapper): an app's Request may be reused with other meanings.
 * @internal
 */
export function parseRequestUrlOnce(request: Request): URL {
  const url = requestUrl(request);
  parsedUrls.set(request, url);
  return url;
}

/**
 * The last entry of a comma-separated X-Forwarded-* header: each proxy appends what it saw, so the last entry
 * is the nearest proxy's, while the first is whatever the client sent.
 */
function lastHeaderValue(value: string | null): string | undefined {
  if (value === null) return undefined;
  const comma = value.lastIndexOf(',');
  return (comma < 0 ? value : value.slice(comma + 1)).trim() || undefined;
}

/** What the origin is read from: a request's headers (only `get` is used), however the integration holds them. */
export interface HeaderReader {
  get(name: string): string | null;
}

/** The parts of the request URL the origin depends on. */
export type UrlHost = Pick<URL, 'host' | 'protocol' | 'origin'>;

/**
 * The origin of the deployment, or UntrustedHost when it cannot be known safely: no AUTH_URL and `trustHost` off
 * (a configuration error), or a host that is malformed or not on the allow-list (RefusedHost). The host is the
 * last X-Forwarded-Host entry, else Host; the scheme the last X-Forwarded-Proto entry. `url` is `request.url`
 * already parsed, when the caller has it.
 */
export function detectOrigin(request: Request, config: InternalConfig, url: UrlHost = requestUrl(request)): string {
  return originOf(request.headers, config, url);
}

/** {@link detectOrigin} from the request's headers and its URL's host, for integrations that hold no Request. */
export function originOf(headers: HeaderReader, config: InternalConfig, url: UrlHost): string {
  if (config.url) return config.url.origin;
  if (!config.trustHost) {
    throw new UntrustedHost(`Host must be trusted. URL was: ${url.origin}. Set \`trustHost\` (true or a list of hosts) or AUTH_URL.`);
  }
  const raw = lastHeaderValue(headers.get('x-forwarded-host')) ?? headers.get('host')?.trim() ?? url.host;
  const protoHeader = lastHeaderValue(headers.get('x-forwarded-proto'))?.toLowerCase();
  const proto = protoHeader === 'https' || protoHeader === 'http' ? protoHeader : url.protocol === 'https:' ? 'https' : 'http';
  // The usual case, a Host header naming the URL's own host: already parsed (this runs on every request).
  const parsed = raw === url.host && `${proto}:` === url.protocol ? url : parseHost(raw, proto);
  if (!parsed) throw new RefusedHost(`The request's host is not a valid host.`, { actual: raw.slice(0, 100) });
  if (config.trustedHosts && !isTrustedHost(config.trustedHosts, parsed.host)) {
    throw new RefusedHost(`The host "${parsed.host}" is not on the trustHost list.`, { actual: parsed.host, expected: config.trustedHosts.patterns });
  }
  return parsed.origin;
}

async function readLimited(request: Request): Promise<string> {
  const tooLarge = () => Object.assign(new BodyTooLarge(`Request body over ${MAX_BODY_BYTES} bytes.`), { fromPage: isPageForm(request) });
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  if (!request.body) return '';
  return readTextUpTo(request.body, MAX_BODY_BYTES, tooLarge);
}

/** Form fields must appear once: a repeated key is an ambiguous (often hostile) request. */
function parseForm(text: string): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  for (const [key, value] of new URLSearchParams(text)) {
    if (key in out) throw new InvalidRequest(`Form field "${key}" is repeated.`);
    out[key] = value;
  }
  return out;
}

/**
 * The essence of a Content-Type (`type/subtype`, lower case, parameters dropped), or '' when there is none.
 * Bodies are told apart by it alone: `text/plain; x=application/json` is what a cross-site page may send without
 * a preflight, so a substring match on the whole header would let it pass for JSON.
 *
 * @example
 * mediaType('Application/JSON; charset=utf-8') // 'application/json'
 * mediaType('text/plain; application/json') // 'text/plain'
 */
export function mediaType(contentType: string | null | undefined): string {
  return (contentType ?? '').split(';', 1)[0]!.trim().toLowerCase();
}

/** Reads the body of a POST: url-encoded forms and JSON objects; anything else is an empty body. */
export async function readBody(request: Request): Promise<Record<string, unknown>> {
  if (request.method !== 'POST') return {};
  const type = mediaType(request.headers.get('content-type'));
  const isForm = type === 'application/x-www-form-urlencoded';
  const isJson = type === 'application/json';
  if (!isForm && !isJson) return {};
  const text = await readLimited(request);
  if (isForm) return parseForm(text);
  if (!text.trim()) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new InvalidRequest('Malformed JSON body.');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new InvalidRequest('JSON body must be an object.');
  return parsed as Record<string, unknown>;
}


export interface AuthRequestOptions {
  /** Read a POST's body (default). Off for reading the session, which needs only the cookies. */
  body?: boolean;
}

/**
 * The headers a route added to the request's response, or undefined when it added none (not even an empty
 * `Headers` is made for it then).
 */
export function addedHeaders(req: AuthRequest): Headers | undefined {
  return req instanceof RequestFacts ? req.added : req.headers;
}

/**
 * Builds the request context. Throws UntrustedHost, InvalidRequest or BodyTooLarge. Only a POST whose body is read
 * makes it a promise: a GET's context is there at once, without a turn of the event loop. `url` is `request.url`
 * already parsed, when the caller has it (h3 parsed it to route the request).
 */
export function createAuthRequest(request: Request, config: InternalConfig, options: AuthRequestOptions = {}, url: URL = requestUrl(request)): AuthRequest | Promise<AuthRequest> {
  const origin = detectOrigin(request, config, url);
  const method = request.method;
  const cookie = request.headers.get('cookie');
  if (method === 'POST' && options.body !== false) return readBody(request).then((body) => new RequestFacts(request, url, method, origin, cookie, body, config, cookieOptionsFor(config, isSecureFor(config, origin))));
  return new RequestFacts(request, url, method, origin, cookie, {}, config, cookieOptionsFor(config, isSecureFor(config, origin)));
}

/**
 * The context of a GET that an integration reads without a web Request: its origin from the headers and the URL's
 * host ({@link originOf}), its cookies from the Cookie header; `request` (and with it `url` and `query`) is made by
 * `makeRequest` if anything asks for it, and must be the Request the integration would have built.
 * Throws UntrustedHost.
 * @internal
 */
export function getRequestContext(makeRequest: () => Request, headers: HeaderReader, urlHost: UrlHost, config: InternalConfig): AuthRequest {
  const origin = originOf(headers, config, urlHost);
  return new RequestFacts(makeRequest, requestUrl, 'GET', origin, headers.get('cookie'), {}, config, cookieOptionsFor(config, isSecureFor(config, origin)));
}

const cookieCache = new WeakMap<InternalConfig, { secure?: CookiesOptions; plain?: CookiesOptions }>();

/** Cookie names/attributes for this config and protocol (computed once per config). */
/** Whether this request's cookies are the secure kind (`__Secure-`, `__Host-`). */
const isSecureFor = (config: InternalConfig, origin: string) => config.useSecureCookies ?? origin.startsWith('https:');

export function cookieOptionsFor(config: InternalConfig, secure: boolean): CookiesOptions {
  let entry = cookieCache.get(config);
  if (!entry) cookieCache.set(config, (entry = {}));
  const key = secure ? 'secure' : 'plain';
  return (entry[key] ??= mergeCookies(defaultCookies(secure), config.cookies));
}

export { pageNonce } from '../core/page-nonce.js';

