// A browser-like HTTP client for end-to-end tests: carries cookies per host, follows redirects by hand (across
// hosts, e.g. our app -> the OpenID Provider -> back), and works over any fetch-shaped function.
import { CookieJar } from './cookie-jar.js';

/** Anything that answers a `Request`: an in-process `app.fetch`, or the global `fetch` against a real port. */
export type FetchLike = (request: Request) => Promise<Response>;

/** A response as the client hands it back: the real `Response` plus what tests assert on. */
export interface ClientResponse extends Response {
  /** The URL that was requested (a `Response` from an in-process handler has an empty `url`). */
  readonly requestUrl: URL;
  /** The `Set-Cookie` lines of this very response, verbatim (tests assert "no session cookie set"). */
  readonly setCookie: readonly string[];
  /** The `Location` header resolved against `requestUrl`, or null. */
  readonly location: URL | null;
  /** For a response returned by `follow()`: every response before it, oldest first (bodies already read). */
  readonly history: readonly ClientResponse[];
}

/** `RequestInit` for the client; `json: true` sends the body of `post()` as JSON instead of a form. */
export interface ClientInit extends Omit<RequestInit, 'body' | 'redirect'> {
  json?: boolean;
}

/** Options for {@link TestClient.follow}. */
export interface FollowOptions {
  /** Most redirects to follow before throwing; default 10. */
  max?: number;
  /** Stop before requesting a URL for which this returns true; the redirect pointing at it is returned. */
  stopAt?: (url: URL) => boolean;
}

/** Where a form (or a redirect) sends the browser next, e.g. the result of the OP harness's `login()`. */
export interface Navigation {
  url: string;
  method: 'GET' | 'POST';
  form?: Record<string, string>;
}

/** The client returned by {@link createClient}. */
export interface TestClient {
  readonly baseUrl: URL;
  readonly cookies: CookieJar;
  /** GET a path (resolved against `baseUrl`) or an absolute URL. */
  get(pathOrUrl: string | URL, init?: ClientInit): Promise<ClientResponse>;
  /** POST a form (`application/x-www-form-urlencoded`), or JSON when `init.json` is set. */
  post(pathOrUrl: string | URL, body: Record<string, string> | URLSearchParams | string, init?: ClientInit): Promise<ClientResponse>;
  /** Sends a prepared request, adding the jar's cookies unless it already carries a `cookie` header. */
  request(request: Request): Promise<ClientResponse>;
  /** Follows 3xx responses by hand, across hosts, with cookies, as a browser would. */
  follow(res: ClientResponse, options?: FollowOptions): Promise<ClientResponse>;
  /** Performs a navigation: a GET of `url`, or a POST of `form` (what an auto-submitting form_post page does). */
  submit(navigation: Navigation, init?: ClientInit): Promise<ClientResponse>;
}

/** Options for {@link createClient}. */
export interface CreateClientOptions {
  /** Defaults to the global `fetch` with `redirect: 'manual'`. */
  fetch?: FetchLike;
  /** Base for relative paths, e.g. `http://localhost:3000` or a real `http://127.0.0.1:PORT`. */
  baseUrl: string | URL;
  /** Share a jar between clients (e.g. two tabs of one browser). */
  cookies?: CookieJar;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** A sent request's method, headers and body, for a 307/308 to repeat. */
interface Replay {
  method: string;
  headers: Headers;
  body(): Promise<BodyInit | null>;
}

// The global fetch must never follow redirects itself: it would drop our cookies and hide the hops from tests.
const globalFetch: FetchLike = (request) => fetch(request, { redirect: 'manual' });

function decorate(res: Response, requestUrl: URL, setCookie: string[], history: readonly ClientResponse[]): ClientResponse {
  const location = res.headers.get('location');
  // Properties go on the instance so the object stays a real Response (instanceof, body methods, clone);
  // configurable, because follow() re-decorates its final response with the history.
  Object.defineProperties(res, {
    requestUrl: { value: requestUrl, enumerable: true, configurable: true },
    setCookie: { value: Object.freeze([...setCookie]), enumerable: true, configurable: true },
    location: { value: location === null ? null : new URL(location, requestUrl), enumerable: true, configurable: true },
    history: { value: Object.freeze([...history]), enumerable: true, configurable: true },
  });
  return res as ClientResponse;
}

function encodeBody(body: Record<string, string> | URLSearchParams | string, json: boolean): { body: string; type: string } {
  if (json) {
    const value = body instanceof URLSearchParams ? Object.fromEntries(body) : body;
    return { body: typeof value === 'string' ? value : JSON.stringify(value), type: 'application/json' };
  }
  const form = typeof body === 'string' ? body : new URLSearchParams(body).toString();
  return { body: form, type: 'application/x-www-form-urlencoded' };
}

/**
 * Creates a cookie-carrying client for end-to-end tests.
 *
 * @example
 * const client = createClient({ fetch: (req) => app.fetch(req), baseUrl: 'http://localhost:3000' });
 * const res = await client.follow(await client.post('/auth/signin/oidc', { csrfToken }), {
 *   stopAt: (url) => url.origin === op.issuer,
 * });
 * const callback = await op.login(res.location!.href, 'alice');
 */
export function createClient(options: CreateClientOptions): TestClient {
  const send = options.fetch ?? globalFetch;
  const baseUrl = new URL(options.baseUrl);
  const cookies = options.cookies ?? new CookieJar();
  // What a non-GET request sent, kept so a 307/308 can replay it as a browser does.
  const replayable = new WeakMap<ClientResponse, Replay>();

  const resolve = (pathOrUrl: string | URL): URL => new URL(pathOrUrl, baseUrl);

  /** The jar's cookies for `url`, unless the request names its own. */
  function withCookies(headers: Headers, url: URL): Headers {
    if (!headers.has('cookie')) {
      const cookie = cookies.header(url);
      if (cookie) headers.set('cookie', cookie);
    }
    return headers;
  }

  async function sendAndRead(outgoing: Request, url: URL, replay: Replay | undefined): Promise<ClientResponse> {
    const res = await send(outgoing);
    const setCookie = cookies.setFromResponse(url, res);
    const decorated = decorate(res, url, setCookie, []);
    if (replay) replayable.set(decorated, replay);
    return decorated;
  }

  async function request(input: Request): Promise<ClientResponse> {
    const url = new URL(input.url);
    const outgoing = new Request(input, { headers: withCookies(new Headers(input.headers), url), redirect: 'manual' });
    const copy = outgoing.method === 'GET' || outgoing.method === 'HEAD' ? undefined : outgoing.clone();
    return sendAndRead(outgoing, url, copy && { method: copy.method, headers: copy.headers, body: () => copy.arrayBuffer() });
  }

  /**
   * A request of the client's own making, built once with its cookies: no second Request around it, and no clone
   * of its body stream kept for a replay (its text is). What an end-to-end test or a bench measures around a call
   * is then the app's work and little of the client's.
   */
  function sendNew(method: string, pathOrUrl: string | URL, init: ClientInit = {}, body?: { body: string; type: string }): Promise<ClientResponse> {
    const { json: _json, headers: initHeaders, ...rest } = init;
    const url = resolve(pathOrUrl);
    const headers = withCookies(new Headers(initHeaders), url);
    if (body && !headers.has('content-type')) headers.set('content-type', body.type);
    const outgoing = new Request(url, { ...rest, method, headers, body: body?.body, redirect: 'manual' });
    const replay = method === 'GET' || method === 'HEAD' ? undefined : { method, headers: new Headers(headers), body: () => Promise.resolve(body?.body ?? null) };
    return sendAndRead(outgoing, url, replay);
  }

  const client: TestClient = {
    baseUrl,
    cookies,
    get: (pathOrUrl, init) => sendNew('GET', pathOrUrl, init),
    post: (pathOrUrl, body, init) => sendNew('POST', pathOrUrl, init, encodeBody(body, init?.json === true)),
    request,
    async follow(first, { max = 10, stopAt } = {}) {
      const history: ClientResponse[] = [];
      let current = first;
      for (;;) {
        const next = current.location;
        if (!REDIRECTS.has(current.status) || !next || stopAt?.(next)) {
          return history.length === 0 ? current : decorate(current, current.requestUrl, [...current.setCookie], history);
        }
        if (history.length >= max) throw new Error(`follow(): more than ${max} redirects, last to ${next.href}`);
        // Read the redirect's body so the connection goes back to the pool; keep the response for `history`.
        const buffered = decorate(
          new Response(await current.arrayBuffer(), { status: current.status, statusText: current.statusText, headers: current.headers }),
          current.requestUrl,
          [...current.setCookie],
          [],
        );
        history.push(buffered);
        const previous = replayable.get(current);
        // 307/308 repeat method and body; 301/302/303 turn a POST into a GET, as browsers do.
        current =
          (current.status === 307 || current.status === 308) && previous
            ? await request(
                new Request(next, { method: previous.method, headers: stripCookie(previous.headers), body: await previous.body() }),
              )
            : await request(new Request(next, { method: 'GET' }));
      }
    },
    submit(navigation, init) {
      return navigation.method === 'POST'
        ? client.post(navigation.url, navigation.form ?? {}, init)
        : client.get(navigation.url, init);
    },
  };
  return client;
}

// A replayed request must pick up the cookies of its new host, not the old host's.
function stripCookie(headers: Headers): Headers {
  const copy = new Headers(headers);
  copy.delete('cookie');
  return copy;
}
