// Session control as the root entry exports it: each function loads session/session-control.ts with its first call.
// The root must export them, and a bundler places a whole file in one chunk: were the root's chunk to hold session
// control, every app would ship it at start, listing devices or not (bench/RESULTS.md section 6).
import { lazy } from '../core/lazy.js';
import type { RequestContext as AuthRequest } from '../core/request-context.js';
import type { SessionInfo } from './session-control.js';

export type { SessionInfo } from './session-control.js';

const load = /* @__PURE__ */ lazy(() => import('./session-control.js'));

/**
 * The sessions of the user signed in with this request, newest first; undefined when nobody is signed in.
 *
 * @example
 * const sessions = await listSessions(req) // [{ id, current: true, userAgent: 'Firefox…', … }, …]
 */
export async function listSessions(req: AuthRequest): Promise<SessionInfo[] | undefined> {
  return (await load()).listSessions(req);
}

/**
 * Ends one session of the signed-in user (by its `id` from {@link listSessions}); another user's id, or an unknown
 * one, ends nothing. Ending the current session also clears its cookie. Undefined when nobody is signed in.
 *
 * @example
 * await revokeSession(req, id) // true when it ended a session
 */
export async function revokeSession(req: AuthRequest, id: string): Promise<boolean | undefined> {
  return (await load()).revokeSession(req, id);
}

/**
 * Ends every session of the signed-in user but this one; how many ended (undefined when nobody is signed in). Call
 * it when a password or a factor changes. JWT sessions (with an adapter that keeps "sessions valid after"): the
 * others are refused at their next refresh, at most `updateAge` later, and the count is 0.
 *
 * @example
 * await revokeOtherSessions(req)
 */
export async function revokeOtherSessions(req: AuthRequest): Promise<number | undefined> {
  return (await load()).revokeOtherSessions(req);
}

/**
 * "Sign out everywhere": ends every session of the signed-in user, this one included (its cookie is cleared). JWT
 * sessions as in {@link revokeOtherSessions}: the others end at their next refresh.
 *
 * @example
 * await revokeAllSessions(req)
 */
export async function revokeAllSessions(req: AuthRequest): Promise<number | undefined> {
  return (await load()).revokeAllSessions(req);
}
