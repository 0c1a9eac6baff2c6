// Building one activity record from a request: a fresh id, the time, the client's address and user agent, the
// session as a hash, the correlation id of the run that produced it. Only fields named here reach a record, and
// none of them can carry a secret: no form field, no token, no code, no free text from the client but its
// user agent (clipped).
import { createHash, randomFillSync } from 'node:crypto';
import { lazy } from '../core/lazy.js';
import type { RequestContext } from '../core/request-context.js';
import type { ActivityRecord } from './types.js';

/** The fields a caller names; the rest come from the request. */
export type ActivityFields = Omit<ActivityRecord, 'id' | 'at' | 'correlationId' | 'ip' | 'userAgent'> & Partial<Pick<ActivityRecord, 'correlationId' | 'at'>>;

// Ids come from a pool of random bytes filled 256 ids at a time (as node:crypto's randomUUID does): one call into
// the CSPRNG per id cost a sign-in more than the rest of its record. Each id takes bytes no other id took.
const ID_BYTES = 16;
const pool = Buffer.alloc(ID_BYTES * 256);
let taken = pool.length;

/** A new record id: `act_` and 22 random base64url characters (128 bits). */
export function newActivityId(): string {
  if (taken === pool.length) {
    randomFillSync(pool);
    taken = 0;
  }
  const id = pool.toString('base64url', taken, taken + ID_BYTES);
  taken += ID_BYTES;
  return `act_${id}`;
}

/** SHA-256 (base64url) of a session id: names the session, never gives it. */
export function hashSessionId(id: string): string {
  return createHash('sha256').update(id, 'utf8').digest('base64url');
}

/**
 * The hash of this request's session: the one it holds, or the one it just wrote. A database session by its row
 * id (the stored token, so the account page can match its devices), a JWT by its cookie.
 */
export function sessionHashOf(req: RequestContext): string | null {
  const { name } = req.cookieOptions.sessionToken;
  const written = req.setCookies.find((c) => (c.name === name || c.name === `${name}.0`) && c.value);
  const value = written?.value ?? req.cookies[name] ?? req.cookies[`${name}.0`];
  if (!value) return null;
  return hashSessionId(req.config.session.strategy === 'database' ? storedSessionToken(value) : value);
}

const UA_MAX = 512;

// The client address module loads on first use (the root entry does not carry it; a sign-in has loaded it for the
// throttle by then). Once loaded it is read without an await.
const loadAddress = lazy(() => import('../core/client-address.js'));
let addressModule: Awaited<ReturnType<typeof loadAddress>> | undefined;

/**
 * A database session's row id: the SHA-256 of its token, as session/session-token.ts stores it (`sha256:` + hex; the
 * activity layer may not import the session layer; test/activity/postgres-activity.test.ts checks a record names the
 * stored row).
 */
const storedSessionToken = (token: string) => `sha256:${createHash('sha256').update(token, 'utf8').digest('hex')}`;

/** A record of an outcome outside any request (an app's call to an organization function): no address, no agent, no session. */
export function plainActivityRecord(fields: ActivityFields): ActivityRecord {
  return { ...fields, id: newActivityId(), at: fields.at ?? new Date(), correlationId: fields.correlationId ?? newActivityId().slice(4), sessionHash: fields.sessionHash ?? null, ip: null, userAgent: null };
}

/** One record of `fields`, as this request made it. */
export async function activityRecord(req: RequestContext, fields: ActivityFields): Promise<ActivityRecord> {
  const { clientAddress } = addressModule ?? (addressModule = await loadAddress());
  const agent = req.request.headers.get('user-agent');
  const record: ActivityRecord = {
    ...fields,
    id: newActivityId(),
    at: fields.at ?? new Date(),
    correlationId: fields.correlationId ?? req.activity?.correlationId ?? newActivityId().slice(4),
    ip: clientAddress(req.request, req.config.trustHost) ?? null,
    userAgent: agent ? agent.slice(0, UA_MAX) : null,
    sessionHash: fields.sessionHash === undefined ? sessionHashOf(req) : fields.sessionHash,
  };
  if (record.flow === undefined && req.activity?.flow) record.flow = { ...req.activity.flow, transition: req.activity.transition ?? '' };
  if (record.provider === undefined && req.activity?.provider) record.provider = req.activity.provider;
  return record;
}
