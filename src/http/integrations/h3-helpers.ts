// The session helpers in h3's own style (event first, verb-prefixed, named as nuxt-auth-utils users know them):
// h3-shaped doors to the same session functions the routes use, for h3 v2 apps, Nitro 3, and h3 v1 events (Nitro 2).
import { HTTPError, type H3Event } from 'h3';
import type { Session } from '../../core/types.js';
import { strategyFor } from '../../session/strategy.js';
import type { ConfigInput } from '../auth.js';
import { setCookieLines } from '../auth.js';
import { createAuthRequest, detectOrigin, type AuthRequest } from '../request.js';
import { appendNodeSetCookie, isH3V1Event, type H3V1Event } from './h3-v1.js';
import { instanceFor } from './instances.js';
import { getSession, toRequest } from './session-helpers.js';

/** An h3 event: h3 v2 (H3 apps, Nitro 3), or v1 as Nitro 2 and Nuxt pass it. */
export type AnyH3Event = H3Event | H3V1Event;

/** What `requireUserSession` does when nobody is signed in. */
export interface RequireUserSessionOptions {
  /**
   * For page routes: `true` redirects (302) to the sign-in page (`pages.signIn`, else `{basePath}/signin`) with
   * the current page as `callbackUrl`; a string redirects there instead (a path on this site, or a URL). Without
   * it the answer is a 401 `HTTPError`, as an API route wants.
   */
  redirect?: boolean | string;
  /** The 401's message (default `Sign-in required.`). */
  message?: string;
}

/** Queues Set-Cookie lines on the event's response; on h3 v2 also for an error response (a thrown HTTPError). */
function forwardCookies(event: AnyH3Event, lines: readonly string[]): void {
  if (isH3V1Event(event)) return appendNodeSetCookie(event.node.res, lines);
  for (const line of lines) {
    event.res.headers.append('set-cookie', line);
    // h3 2.0.1 release candidates (what Nitro 3.0.0 pins) have no errHeaders.
    (event.res as { errHeaders?: Headers }).errHeaders?.append('set-cookie', line);
  }
}

/** The request context the session strategies work on, for this event and configuration (cookies only). */
async function contextOf(event: AnyH3Event, config: ConfigInput): Promise<AuthRequest> {
  const request = await toRequest(event);
  const { config: resolved } = await instanceFor(config).resolve(request);
  return createAuthRequest(request, resolved, { body: false });
}

/**
 * The session of the request, or null. A refreshed (or cleared) session cookie goes out with the response.
 *
 * @example
 * app.get('/api/me', async (event) => {
 *   const session = await getUserSession(event, config)
 *   return session ? { user: session.user } : { user: null }
 * })
 */
export function getUserSession(event: AnyH3Event, config: ConfigInput): Promise<Session | null> {
  return getSession(event, config);
}

/**
 * The session of a signed-in user, or an answer for the signed out: a 401 `HTTPError` (API routes), or with
 * `{ redirect: true }` a 302 to the sign-in page that comes back here afterwards (page routes).
 *
 * @example
 * app.get('/api/orders', async (event) => {
 *   const { user } = await requireUserSession(event, config) // 401 when signed out
 *   return listOrders(user.email)
 * })
 * app.get('/account', async (event) => {
 *   const session = await requireUserSession(event, config, { redirect: true }) // 302 to the sign-in page
 *   return renderAccount(session)
 * })
 */
export async function requireUserSession(event: AnyH3Event, config: ConfigInput, options: RequireUserSessionOptions = {}): Promise<Session> {
  const session = await getSession(event, config);
  if (session?.user) return session;
  if (!options.redirect) throw new HTTPError({ status: 401, statusText: 'Unauthorized', message: options.message ?? 'Sign-in required.' });
  const request = await toRequest(event);
  const { config: resolved } = await instanceFor(config).resolve(request);
  // detectOrigin throws UntrustedHost for a forged host: a redirect must never name one.
  const origin = detectOrigin(request, resolved);
  let location: string;
  if (typeof options.redirect === 'string') location = new URL(options.redirect, origin).href;
  else {
    const signIn = new URL(resolved.pages.signIn ?? `${resolved.basePath}/signin`, origin);
    // The page as the browser sees it: behind a proxy request.url names the internal host.
    const here = new URL(request.url);
    signIn.searchParams.set('callbackUrl', `${origin}${here.pathname}${here.search}`);
    location = signIn.href;
  }
  // h3 v1 (Nitro 2) reads the status of a thrown error but not its headers: the location goes on the response.
  if (isH3V1Event(event)) event.node.res.setHeader('location', location);
  throw new HTTPError({ status: 302, statusText: 'Found', message: 'Sign-in required.', headers: { location } });
}

/**
 * Signs the request's user out, as `POST {basePath}/signout` does: the session cookie is cleared, a database
 * session is deleted, and the `signOut` event fires. Call it from a POST route your app protects against
 * cross-site requests (a GET that signs out can be triggered by any page).
 *
 * @example
 * app.post('/logout', async (event) => {
 *   await clearUserSession(event, config)
 *   return redirect('/')
 * })
 */
export async function clearUserSession(event: AnyH3Event, config: ConfigInput): Promise<void> {
  const req = await contextOf(event, config);
  await strategyFor(req).signOut(req);
  forwardCookies(event, setCookieLines(req));
}

/**
 * Updates the session (the spec's `unstable_update`): the `jwt` callback runs with `trigger: 'update'` and
 * `session: data` (JWT strategy), or the `session` callback receives `newSession` (database strategy); the
 * re-issued cookie goes out with the response. Resolves to the new session, or null when nobody is signed in.
 * `data` comes from your code: validate anything a client sent before passing it on.
 *
 * @example
 * app.post('/api/profile', async (event) => {
 *   const { name } = await readValidatedBody(event, profileSchema.parse)
 *   return updateUserSession(event, config, { user: { name } })
 * })
 */
export async function updateUserSession(event: AnyH3Event, config: ConfigInput, data: Partial<Session> | Record<string, unknown>): Promise<Session | null> {
  const req = await contextOf(event, config);
  const session = await strategyFor(req).update(req, data);
  forwardCookies(event, setCookieLines(req));
  return session;
}
