// Helpers for the OAuth/OIDC end-to-end suites: drive a sign-in through authchart and a real OP, and read what
// the responses did to the browser (session cookie, flow cookie, error redirect, logged error, flow trace).
import { expect } from 'vitest';
import type { TraceEntry } from '../../../src/devtools/graph.js';
import type { TestAuth } from '../../support/auth-app.js';
import type { ClientResponse, Navigation, TestClient } from '../../support/client.js';
import type { LoginOptions, OidcProviderHarness } from '../peers/oidc.js';

export const BASE = 'http://localhost:3000';
export const SESSION_COOKIE = 'authchart.session-token';
/** Each provider's paused flow has its own cookie, `authchart.flow.<provider id>`. */
export const flowCookieOf = (providerId: string) => `authchart.flow.${providerId}`;
/** The flow cookie of the `oidc` provider, the one most tests sign in with. */
export const FLOW_COOKIE = flowCookieOf('oidc');

/** The redirect URI of provider `id` on the test app. */
export const callbackOf = (id: string) => `${BASE}/auth/callback/${id}`;

/** Options for {@link startSignIn}. */
export interface StartOptions {
  client?: TestClient;
  callbackUrl?: string;
  /** The sign-in request's query: authorization parameters, as `signIn(id, opts, authorizationParams)` sends them. */
  query?: Record<string, string>;
}

/** POST {basePath}/signin/:id with a CSRF token, as the sign-in page's button does; answers the 302 to the OP. */
export async function startSignIn(t: TestAuth, providerId: string, options: StartOptions = {}): Promise<ClientResponse> {
  const client = options.client ?? t.client;
  const csrfToken = await t.csrfToken(client);
  const query = options.query ? `?${new URLSearchParams(options.query)}` : '';
  const res = await client.post(`/auth/signin/${providerId}${query}`, { csrfToken, callbackUrl: options.callbackUrl ?? `${BASE}/dashboard` });
  expect(res.status, `sign-in start for ${providerId}: ${t.logger.errors.map((e) => e.message).join('; ')}`).toBe(302);
  return res;
}

/** A whole sign-in: start, log in at the OP as `account`, and bring the browser back to the callback. */
export async function signInThrough(
  t: TestAuth,
  op: OidcProviderHarness,
  providerId: string,
  account: string,
  options: StartOptions & { login?: LoginOptions } = {},
): Promise<{ start: ClientResponse; nav: Navigation; callback: ClientResponse }> {
  const client = options.client ?? t.client;
  const start = await startSignIn(t, providerId, options);
  const nav = await op.login(start.location!.href, account, options.login);
  const callback = await client.submit(nav);
  return { start, nav, callback };
}

/** The Set-Cookie line for `name` in a response, if any. */
export function cookieLine(res: ClientResponse, name: string): string | undefined {
  return res.setCookie.find((line) => line.startsWith(`${name}=`));
}

/** Whether a response set (not cleared) a session cookie or one of its chunks. */
export function setsSession(res: ClientResponse): boolean {
  return res.setCookie.some((line) => {
    const [pair] = line.split(';');
    const [name, value] = pair.split('=');
    return (name === SESSION_COOKIE || name.startsWith(`${SESSION_COOKIE}.`)) && value !== '' && !/max-age=0/i.test(line);
  });
}

/** The value of the flow cookie a response set for a provider (`oidc` unless told). */
export function flowCookieValue(res: ClientResponse, providerId = 'oidc'): string {
  const name = flowCookieOf(providerId);
  const line = cookieLine(res, name);
  if (!line) throw new Error(`no flow cookie was set for ${providerId}`);
  return line.split(';')[0].slice(name.length + 1);
}

/** Asserts a failed sign-in: a redirect carrying the public error, the logged error type, and no session. */
export function expectFailure(t: TestAuth, res: ClientResponse, type: string, publicType = type): void {
  expect(res.status).toBe(302);
  expect(res.location?.searchParams.get('error')).toBe(publicType);
  expect(t.logger.errorTypes().at(-1), t.logger.errors.map((e) => `${(e as { type?: string }).type}: ${e.message}`).join('\n')).toBe(type);
  expect(setsSession(res)).toBe(false);
}

/** The logged error of the last failure (with its evidence in `cause`). */
export function lastError(t: TestAuth): Error & { type?: string; cause?: Record<string, unknown> } {
  const err = t.logger.errors.at(-1);
  if (!err) throw new Error('no error was logged');
  return err as Error & { type?: string; cause?: Record<string, unknown> };
}

/** The flow traces the runtime logged at debug level (`flow <machine> <status>`), oldest first. */
export function loggedTraces(t: TestAuth, machine = 'oauth'): { status: string; provider: string; trace: TraceEntry[] }[] {
  return t.logger.debugs
    .filter((d) => d.message.startsWith(`flow ${machine} `))
    .map((d) => {
      const meta = d.metadata as { provider: string; trace: TraceEntry[] };
      return { status: d.message.split(' ')[2], provider: meta.provider, trace: meta.trace };
    });
}

/** Replaces one query parameter of a URL (or drops it with `undefined`). */
export function withParam(url: string | URL, name: string, value: string | undefined): string {
  const next = new URL(url);
  if (value === undefined) next.searchParams.delete(name);
  else next.searchParams.set(name, value);
  return next.href;
}

/** Sends a callback with an explicit Cookie header (a stale or stolen flow cookie the browser would not send). */
export function callbackWithCookie(client: TestClient, nav: Navigation, cookie: string): Promise<ClientResponse> {
  const headers = { cookie };
  return nav.method === 'POST' ? client.post(nav.url, nav.form ?? {}, { headers }) : client.get(nav.url, { headers });
}
