// Session control ("your devices") from application code, for any request object (an h3 event, a web Request, a Node
// request): the same functions as GET {basePath}/sessions and POST {basePath}/sessions/revoke, cookies forwarded.
import type { ServerResponse } from 'node:http';
import { listSessions, revokeAllSessions, revokeOtherSessions, revokeSession, type SessionInfo } from '../../session/session-control-entry.js';
import type { ConfigInput } from '../auth.js';
import { setCookieLines } from '../auth.js';
import { createAuthRequest, type AuthRequest } from '../request.js';
import { appendNodeSetCookie, isH3V1Event } from './h3-v1.js';
import { instanceFor } from './instances.js';
import { isH3Event, toRequest, type AnyRequest } from './session-helpers.js';

/**
 * Where a changed session cookie goes when the request is not an h3 event: the `Headers` of the response you will
 * return (fetch style), or a Node `ServerResponse`. h3 events need none: the cookie goes on the event's response.
 */
export interface SessionControlOptions {
  cookies?: Headers | ServerResponse;
}

async function contextOf(input: AnyRequest, config: ConfigInput): Promise<AuthRequest> {
  const request = await toRequest(input);
  const { config: resolved } = await instanceFor(config).resolve(request);
  return createAuthRequest(request, resolved, { body: false });
}

/** Sends the cookies the operation set (a cleared cookie, or a JWT rewritten to outlive the others it ended). */
function forward(input: AnyRequest, req: AuthRequest, options: SessionControlOptions): void {
  const lines = setCookieLines(req);
  if (lines.length === 0) return;
  const target = options.cookies;
  if (target instanceof Headers) for (const line of lines) target.append('set-cookie', line);
  else if (target) appendNodeSetCookie(target, lines);
  else if (isH3V1Event(input)) appendNodeSetCookie(input.node.res, lines);
  else if (isH3Event(input)) for (const line of lines) input.res.headers.append('set-cookie', line);
}

async function run<T>(input: AnyRequest, config: ConfigInput, options: SessionControlOptions, work: (req: AuthRequest) => Promise<T>): Promise<T> {
  const req = await contextOf(input, config);
  const result = await work(req);
  forward(input, req, options);
  return result;
}

/**
 * The signed-in user's database sessions ("your devices"), newest first, the current one marked; undefined when
 * nobody is signed in. Throws `UnsupportedStrategy` for JWT sessions (they cannot be listed).
 *
 * @example
 * app.get('/account/devices', async (event) => (await listUserSessions(event, config)) ?? [])
 */
export function listUserSessions(input: AnyRequest, config: ConfigInput, options: SessionControlOptions = {}): Promise<SessionInfo[] | undefined> {
  return run(input, config, options, (req) => listSessions(req));
}

/**
 * Ends one of the signed-in user's database sessions by its `id` (from {@link listUserSessions}); false for an id
 * that is not theirs, undefined when nobody is signed in. Call it from a POST route protected against cross-site
 * requests.
 *
 * @example
 * app.post('/account/devices/end', async (event) => revokeUserSession(event, config, (await readBody(event)).id))
 */
export function revokeUserSession(input: AnyRequest, config: ConfigInput, id: string, options: SessionControlOptions = {}): Promise<boolean | undefined> {
  return run(input, config, options, (req) => revokeSession(req, id));
}

/**
 * Ends every other session of the signed-in user (database: deleted, the count returned; JWT with an adapter that
 * keeps "sessions valid after": refused at their next refresh, 0). This session stays. Call it from a protected POST.
 *
 * @example
 * // fetch style: the rewritten JWT cookie goes on your response
 * const headers = new Headers()
 * await revokeOtherUserSessions(request, config, { cookies: headers })
 * headers.set('location', '/account')
 * return new Response(null, { status: 303, headers })
 */
export function revokeOtherUserSessions(input: AnyRequest, config: ConfigInput, options: SessionControlOptions = {}): Promise<number | undefined> {
  return run(input, config, options, (req) => revokeOtherSessions(req));
}

/**
 * "Sign out everywhere": ends every session of the signed-in user, this one included (its cookie is cleared). Call
 * it from a protected POST.
 *
 * @example
 * app.post('/account/sign-out-everywhere', async (event) => { await revokeAllUserSessions(event, config); return redirect('/') })
 */
export function revokeAllUserSessions(input: AnyRequest, config: ConfigInput, options: SessionControlOptions = {}): Promise<number | undefined> {
  return run(input, config, options, (req) => revokeAllSessions(req));
}
