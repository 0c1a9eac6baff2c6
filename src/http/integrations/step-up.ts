// Step-up for sensitive routes: the session must have been verified (signed in, or a factor check passed) within
// `maxAge` seconds; otherwise the browser goes through a factor check ({basePath}/factors/verify), or a full sign-in
// when the user has no factor, and comes back to the same URL.
import { HTTPError } from 'h3';
import type { AuthMethod, Session } from '../../core/types.js';
import { sessionGate } from '../../session/gate.js';
import type { ConfigInput } from '../auth.js';
import { createAuthRequest, detectOrigin } from '../request.js';
import { isH3V1Event, type H3V1Event } from './h3-v1.js';
import type { AnyH3Event } from './h3-helpers.js';
import { instanceFor } from './instances.js';
import { getSession, toRequest, type AnyRequest } from './session-helpers.js';

/** Options of {@link requireRecentSignIn} and {@link checkRecentSignIn}. */
export interface RecentSignInOptions {
  /** Seconds since the session was last verified that still count as recent. */
  maxAge: number;
}

/** What {@link checkRecentSignIn} found. */
export type RecentSignIn =
  | { ok: true; session: Session; authTime: Date; amr: AuthMethod[] }
  | {
      ok: false;
      /** `signedOut`: nobody is signed in; `stale`: the last verification is older than `maxAge` (or unknown). */
      reason: 'signedOut' | 'stale';
      /** Where to send the browser: the factor check or the sign-in page, returning to this URL. */
      location: string;
    };

/**
 * Whether the request's session was verified within `maxAge` seconds, for any request object (a web Request, a
 * Node request, an h3 event). When it was not, `location` is where the browser should go. A refreshed session cookie
 * goes out with an h3 event's response; for Node pass nothing more, the session read does not need one.
 *
 * @example
 * // fetch-style handler
 * const recent = await checkRecentSignIn(request, config, { maxAge: 300 })
 * if (!recent.ok) return Response.redirect(recent.location, 302)
 * // Express
 * const recent = await checkRecentSignIn(req, config, { maxAge: 300 })
 * if (!recent.ok) return res.redirect(recent.location)
 */
export async function checkRecentSignIn(input: AnyRequest, config: ConfigInput, options: RecentSignInOptions): Promise<RecentSignIn> {
  const request = await toRequest(input);
  const { config: resolved } = await instanceFor(config).resolve(request);
  // detectOrigin throws UntrustedHost for a forged host: a redirect must never name one.
  const origin = detectOrigin(request, resolved);
  const url = new URL(request.url);
  // The page as the browser sees it: behind a proxy request.url names the internal host.
  const here = `${origin}${url.pathname}${url.search}`;
  const signIn = new URL(resolved.pages.signIn ?? `${resolved.basePath}/signin`, origin);
  signIn.searchParams.set('callbackUrl', here);

  const session = await getSession(input, config);
  const req = await createAuthRequest(request, resolved, { body: false });
  const gate = session?.user ? await sessionGate(req, { maxAge: options.maxAge }) : undefined;
  if (!session?.user || !gate || (!gate.ok && gate.reason === 'signedOut')) return { ok: false, reason: 'signedOut', location: signIn.href };
  if (gate.ok && gate.verification) return { ok: true, session, authTime: gate.verification.authTime, amr: gate.verification.amr };
  // With second factors, the factor check decides (it sends a user without a factor to sign in); without, sign in.
  if (!resolved.secondFactor) return { ok: false, reason: 'stale', location: signIn.href };
  const check = new URL(`${resolved.basePath}/factors/verify`, origin);
  check.searchParams.set('callbackUrl', here);
  return { ok: false, reason: 'stale', location: check.href };
}

/**
 * The session of an h3 event, if it was verified within `maxAge` seconds; otherwise a 302 `HTTPError` to the
 * factor check (or the sign-in page) that brings the browser back here. Use it on routes that change what matters:
 * an e-mail address, a payout account, the user's factors.
 *
 * @example
 * app.post('/account/email', async (event) => {
 *   const session = await requireRecentSignIn(event, config, { maxAge: 5 * 60 })
 *   return changeEmail(session.user, await readBody(event))
 * })
 */
export async function requireRecentSignIn(event: AnyH3Event, config: ConfigInput, options: RecentSignInOptions): Promise<Session> {
  const recent = await checkRecentSignIn(event as AnyRequest, config, options);
  if (recent.ok) return recent.session;
  // h3 v1 (Nitro 2) reads the status of a thrown error but not its headers: the location goes on the response.
  if (isH3V1Event(event)) (event as H3V1Event).node.res.setHeader('location', recent.location);
  const message = recent.reason === 'signedOut' ? 'Sign-in required.' : 'Recent sign-in required.';
  throw new HTTPError({ status: 302, statusText: 'Found', message, headers: { location: recent.location } });
}
