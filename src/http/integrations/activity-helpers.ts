// listActivity: the security activity log for application code, whatever the request object (a web Request, an
// h3 event, a Node request), as getSession and requireOrganization read it. By default the signed-in user's own
// records; another user's, an organization's or everyone's only when the app says this is an admin read.
import type { ServerResponse } from 'node:http';
import { HTTPError } from 'h3';
import { readActivity } from '../../activity/list.js';
import type { ActivityPage, ActivityQuery } from '../../activity/types.js';
import { AccessDenied, AuthError, SessionRequired } from '../../core/errors.js';
import { sessionGate } from '../../session/gate.js';
import type { ConfigInput } from '../auth.js';
import { setCookieLines } from '../auth.js';
import { outageHttpError, outageOf } from '../outage.js';
import { createAuthRequest } from '../request.js';
import { appendNodeSetCookie, H3V1CompatibleError, isH3V1Event } from './h3-v1.js';
import { instanceFor } from './instances.js';
import { isH3Event, toRequest, type AnyRequest } from './session-helpers.js';

/** What listActivity reads: an {@link ActivityQuery}, and `admin` to read beyond the signed-in user's own records. */
export interface ListActivityQuery extends ActivityQuery {
  /**
   * The app has checked that the caller may read any record (its own admin check): `userId`, `organizationId` or
   * neither (every record) is then read as given, and nobody need be signed in. Without it, only the signed-in
   * user's own records are read, and a `userId` of someone else or an `organizationId` is refused (AccessDenied).
   */
  admin?: boolean;
}

/**
 * One page of activity records, newest first, and the cursor of the next page (null at the end).
 * Signed out (and no `admin`): `SessionRequired` (401). In h3 the refusals are `HTTPError`s with the same statuses.
 *
 * @example
 * app.get('/api/activity', async (event) => listActivity(event, config, { kinds: ['signIn.succeeded', 'signIn.failed'] }))
 * // an admin page, behind the app's own check:
 * app.get('/admin/users/:id/activity', async (event) => listActivity(event, config, { admin: true, userId: event.context.params.id }))
 */
export async function listActivity(input: AnyRequest, config: ConfigInput, query: ListActivityQuery = {}, res?: ServerResponse): Promise<ActivityPage> {
  const request = await toRequest(input);
  const { config: resolved } = await instanceFor(config).resolve(request);
  const h3 = isH3Event(input);
  const h3v1 = isH3V1Event(input);
  const { admin, ...rest } = query ?? {};
  try {
    if (admin === true) return await readActivity(resolved, rest);
    const req = await createAuthRequest(request, resolved, { body: false });
    const gate = await sessionGate(req);
    const lines = setCookieLines(req);
    if (res) appendNodeSetCookie(res, lines);
    else if (h3v1) appendNodeSetCookie(input.node.res, lines);
    else if (h3) for (const line of lines) input.res.headers.append('set-cookie', line);
    if (!gate.ok) throw new SessionRequired('Sign-in required.');
    if ((rest.userId !== undefined && rest.userId !== gate.userId) || rest.organizationId !== undefined) {
      throw new AccessDenied("Reading another user's or an organization's activity needs `admin: true` (after the app's own check).");
    }
    return await readActivity(resolved, { ...rest, userId: gate.userId });
  } catch (err) {
    if (!h3 && !h3v1) throw err;
    const down = outageOf(err);
    if (down) throw outageHttpError(resolved, down, h3v1);
    if (!(err instanceof AuthError)) throw err;
    const status = err instanceof SessionRequired ? 401 : err instanceof AccessDenied ? 403 : 400;
    const Err = h3v1 ? H3V1CompatibleError : HTTPError;
    throw new Err({ status, statusText: status === 401 ? 'Unauthorized' : status === 403 ? 'Forbidden' : 'Bad Request', message: err.message, data: { error: err.type } });
  }
}
