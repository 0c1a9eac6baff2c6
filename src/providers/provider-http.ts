// How authchart's own requests reach a provider (discovery, JWKS, token, user info, refresh): on Node through
// node:http / node:https with keep-alive agents of its own, handed to oauth4webapi as its `customFetch`, and the
// answer handed back as a Response that reads its text without a stream (AuthResponse). Node's fetch spends
// several times the CPU per request (web streams for both bodies, a clone of the request, a second stream to read
// the answer). Everywhere else (Bun, Deno, workers), and whenever the app has put a fetch or an undici dispatcher
// of its own in place (a test double, a proxy agent), requests go through the global fetch as before. Answers are
// read up to a size limit: a provider that streams without end fails the request instead of filling memory.
import type { Agent, ClientRequest, IncomingMessage, RequestOptions } from 'node:http';
import { runtimeEnv } from '../core/env.js';
import { AuthResponse } from '../core/fast-response.js';
import { readTextUpTo } from '../core/read-limited.js';

/** The largest provider answer read (discovery documents and key sets are a few kB; this is generous). */
export const PROVIDER_RESPONSE_LIMIT = 1024 * 1024;
/** How long one request to a provider may take: what every caller of authchart's passes as its signal. */
export const PROVIDER_REQUEST_TIMEOUT_MS = 10_000;
const tooLarge = () => new RangeError(`The provider's answer is larger than ${PROVIDER_RESPONSE_LIMIT} bytes.`);

type Fetch = (url: string, init?: RequestInit) => Promise<Response>;
interface HttpModule {
  request(url: URL, options: RequestOptions, callback: (res: IncomingMessage) => void): ClientRequest;
  Agent: new (options: { keepAlive: boolean; timeout: number }) => Agent;
}

const GLOBAL_DISPATCHER = Symbol.for('undici.globalDispatcher.1');
/** The fetch in place when this module loaded: one put in place since is the app's choice and is used instead. */
const fetchAtLoad = globalThis.fetch;

/** Node itself: Bun and Deno report `process.versions.node` too, and their node:http is a layer over their fetch. */
function onNode(): boolean {
  const p = globalThis.process as (NodeJS.Process & { getBuiltinModule?: unknown }) | undefined;
  return typeof p?.versions?.node === 'string' && !p.versions.bun && !p.versions.deno && !('Deno' in globalThis) && typeof p.getBuiltinModule === 'function';
}
const isNode = onNode();

/**
 * Whether provider requests go over node:http: on Node, with the fetch and the kind of undici dispatcher Node
 * starts with, and no NODE_USE_ENV_PROXY. A dispatcher of another class (`ProxyAgent`, `EnvHttpProxyAgent`, a
 * `MockAgent`) means the app routes fetch somewhere on purpose, and its requests to providers must go the same way.
 */
export function nodeTransportApplies(): boolean {
  if (!isNode || globalThis.fetch !== fetchAtLoad) return false;
  // Newer Node versions route fetch (and their global agents, not ours) through HTTP_PROXY when this is set.
  if (runtimeEnv().NODE_USE_ENV_PROXY) return false;
  const dispatcher = (globalThis as Record<symbol, unknown>)[GLOBAL_DISPATCHER] as { constructor?: { name?: string } } | undefined;
  return dispatcher === undefined || dispatcher.constructor?.name === 'Agent';
}

let modules: { http: HttpModule; https: HttpModule; agents: Record<'http:' | 'https:', Agent> } | undefined;
function transportModules(): NonNullable<typeof modules> {
  if (modules) return modules;
  const node = globalThis.process as unknown as { getBuiltinModule(id: string): HttpModule };
  const http = node.getBuiltinModule('node:http');
  const https = node.getBuiltinModule('node:https');
  // Keep-alive: a sign-in's token request reuses the connection discovery opened. Node's agent unrefs idle sockets
  // (they never hold a process open); an idle one is closed after 30 s.
  const agents = { 'http:': new http.Agent({ keepAlive: true, timeout: 30_000 }), 'https:': new https.Agent({ keepAlive: true, timeout: 30_000 }) };
  modules = { http, https, agents };
  return modules;
}

/** A request body as oauth4webapi sends one (form parameters, text, or nothing), with the type fetch would give it. */
function bodyOf(body: RequestInit['body']): { text: string; type: string } | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return { text: body, type: 'text/plain;charset=UTF-8' };
  if (body instanceof URLSearchParams) return { text: body.toString(), type: 'application/x-www-form-urlencoded;charset=UTF-8' };
  throw new TypeError('A provider request body must be form parameters or text.');
}

function headersOf(init: HeadersInit | undefined, body: { text: string; type: string } | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  new Headers(init).forEach((value, name) => (out[name] = value));
  if (body) {
    out['content-length'] = String(Buffer.byteLength(body.text));
    out['content-type'] ??= body.type;
  }
  return out;
}

/** How long a request without an abort signal of its own may take (an app's own code calling the transport). */
const DEFAULT_DEADLINE_MS = 30_000;

/** A reason phrase a Response accepts (RFC 9110 reason-phrase); anything else is dropped, as it carries nothing. */
const REASON_PHRASE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** Statuses whose Response must not have a body. */
const NULL_BODY = new Set([204, 205, 304]);

/**
 * What oauth4webapi asks of fetch, over node:http(s): redirects not followed (it asks for `manual` and treats a 3xx
 * as the error it is), the abort signal honoured, the answer read whole (up to PROVIDER_RESPONSE_LIMIT).
 */
export const nodeProviderFetch: Fetch = (input, init = {}) =>
  new Promise<Response>((resolve, reject) => {
    const url = new URL(input);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return reject(new TypeError(`Cannot request a ${url.protocol} URL.`));
    // As fetch: credentials in the URL are refused, not turned into an Authorization header.
    if (url.username || url.password) return reject(new TypeError('A provider URL must not include credentials.'));
    const signal = init.signal ?? AbortSignal.timeout(DEFAULT_DEADLINE_MS);
    if (signal.aborted) return reject(signal.reason);
    let body: ReturnType<typeof bodyOf>;
    try {
      body = bodyOf(init.body);
    } catch (err) {
      return reject(err);
    }
    const { http, https, agents } = transportModules();
    const lib = url.protocol === 'https:' ? https : http;
    const options: RequestOptions = { method: init.method ?? 'GET', headers: headersOf(init.headers, body), agent: agents[url.protocol] };
    let settled = false;
    let req: ClientRequest;
    const settle = (error: unknown, response?: Response) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      if (response) resolve(response);
      else reject(error);
    };
    const onAbort = () => {
      req.destroy();
      settle(signal.reason ?? new Error('The provider request was aborted.'));
    };
    const send = (retry: boolean) => {
      let answered = false;
      req = lib.request(url, options, (res) => {
        answered = true;
        answer(res, settle);
      });
      req.on('error', (err) => {
        // A kept-alive connection the provider closed as this request went out on it: nothing reached the provider's
        // application, so the request goes once more, on a new connection (what Node's documentation advises).
        if (retry && !answered && !settled && req.reusedSocket) send(false);
        else settle(err);
      });
      req.end(body?.text);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    send(true);
  });

/** Reads an answer whole (up to the limit) into a Response, or fails with why it could not. */
function answer(res: IncomingMessage, settle: (error: unknown, response?: Response) => void): void {
  const status = res.statusCode ?? 0;
  if (status < 200 || status > 599) {
    res.destroy();
    return settle(new TypeError(`The provider answered with HTTP status ${status}.`));
  }
  const chunks: Buffer[] = [];
  let size = 0;
  res.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size <= PROVIDER_RESPONSE_LIMIT) return void chunks.push(chunk);
    res.destroy();
    settle(tooLarge());
  });
  res.on('error', settle);
  res.on('end', () => {
    try {
      const headers = new Headers();
      const raw = res.rawHeaders;
      for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!);
      const text = NULL_BODY.has(status) ? null : chunks.length === 1 ? chunks[0]!.toString() : Buffer.concat(chunks, size).toString();
      settle(undefined, new AuthResponse(text, { status, statusText: REASON_PHRASE.test(res.statusMessage ?? '') ? res.statusMessage : '', headers }));
    } catch (err) {
      settle(err);
    }
  });
}

/**
 * The global fetch, read at call time (an app's replacement is honoured), held to the Node transport's rules: no
 * redirect followed unless the caller asks (a bearer token goes nowhere the caller did not name), a deadline when
 * the caller gave no signal, and the answer read up to PROVIDER_RESPONSE_LIMIT into a Response of its own (a
 * provider streaming without end fails the request instead of filling memory).
 */
const globalFetch: Fetch = async (url, init = {}) => {
  const response = await globalThis.fetch(url, { redirect: 'manual', ...init, signal: init.signal ?? AbortSignal.timeout(DEFAULT_DEADLINE_MS) });
  return readLimited(response);
};

/** A fetched answer read whole, up to the limit; one without a readable body (a null-body status, an opaque one) as it is. */
async function readLimited(response: Response): Promise<Response> {
  if (!response.body || response.status < 200 || response.status > 599 || NULL_BODY.has(response.status)) return response;
  if (Number(response.headers.get('content-length') ?? 0) > PROVIDER_RESPONSE_LIMIT) {
    response.body.cancel().catch(() => {});
    throw tooLarge();
  }
  const text = await readTextUpTo(response.body, PROVIDER_RESPONSE_LIMIT, tooLarge);
  return new AuthResponse(text, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/**
 * The fetch for a provider request: node:http(s) where {@link nodeTransportApplies}, else the global fetch.
 *
 * @example
 * const res = await providerFetch()('https://accounts.example.com/.well-known/openid-configuration', { headers: { accept: 'application/json' } })
 */
export function providerFetch(): Fetch {
  return nodeTransportApplies() ? nodeProviderFetch : globalFetch;
}
