// Session control: the signed-in user's database sessions (devices) listed, one ended, all the others ended, or every
// one ("sign out everywhere"); JWT sessions end the others through the user's "sessions valid after" time.
// Database sessions are named by their stored token (a hash), never the cookie. The root entry exports these functions
// through session-control-entry.ts, which loads this module on first call and holds their public documentation.
import type { SessionRecord } from '../core/adapter.js';
import type { WrappedAdapter } from '../core/adapter-wrap.js';
import { MissingAdapterMethods, UnsupportedStrategy } from '../core/errors.js';
import type { RequestContext as AuthRequest } from '../core/request-context.js';
import { clearCookie } from '../core/request-context.js';
import { liveToken, clearSession as clearJwtCookie, rewriteToken } from './jwt-strategy.js';
import { storedSessionToken } from './session-token.js';
import { endSessionsBefore, keepsValidAfter } from './valid-after.js';
import { sessionGate } from './gate.js';
import { noteActivity } from '../activity/run.js';
import { hashSessionId, sessionHashOf } from '../activity/record.js';

/** The record of sessions ended through session control: by this request's session (`endedBy`, a hash). */
function noteEnded(req: AuthRequest, userId: string, scope: 'one' | 'others' | 'all', ended: { id?: string; count?: number }): Promise<void> {
  const by = sessionHashOf(req);
  return noteActivity(req, {
    kind: 'session.ended',
    userId,
    actorId: userId,
    reason: scope === 'one' ? 'revoked' : scope === 'others' ? 'othersRevoked' : 'allRevoked',
    sessionHash: ended.id ? hashSessionId(ended.id) : null,
    detail: { scope, ...(by ? { endedBy: by } : {}), ...(ended.count !== undefined ? { count: ended.count } : {}) },
  });
}

/** One session as its owner sees it. `id` is safe to show: it names the row, and is not the cookie. */
export interface SessionInfo {
  id: string;
  /** This request's own session. */
  current: boolean;
  createdAt: string | null;
  lastSeenAt: string | null;
  expires: string;
  userAgent: string | null;
  ipAddress: string | null;
}

type ControlAdapter = WrappedAdapter & Required<Pick<WrappedAdapter, 'listSessions' | 'deleteSessions'>>;

function controlAdapter(req: AuthRequest): ControlAdapter {
  const adapter = req.config.adapter;
  if (req.config.session.strategy !== 'database' || !adapter) {
    throw new UnsupportedStrategy('Listing and ending sessions needs database sessions (JWT sessions: see sessionsValidAfter).');
  }
  if (!adapter.listSessions || !adapter.deleteSessions) {
    throw new MissingAdapterMethods('Session control needs the adapter methods listSessions and deleteSessions (PostgresAdapter has them).', { missing: ['listSessions', 'deleteSessions'] });
  }
  return adapter as ControlAdapter;
}

/** The signed-in user's id (through the session gate) and this request's stored token, or undefined when signed out. */
async function current(req: AuthRequest): Promise<{ userId: string; stored: string } | undefined> {
  const gate = await sessionGate(req);
  if (!gate.ok) return undefined;
  const { name } = req.cookieOptions.sessionToken;
  // The session cookie this request holds: as sent, or as just written (an Auth.js session moved over).
  const cookie = req.setCookies.find((c) => c.name === name && c.value)?.value ?? req.cookies[name];
  return cookie ? { userId: gate.userId, stored: storedSessionToken(cookie) } : undefined;
}

const iso = (d: Date | string | null | undefined) => (d ? new Date(d).toISOString() : null);

function info(row: SessionRecord, currentStored: string): SessionInfo {
  return {
    id: row.sessionToken,
    current: row.sessionToken === currentStored,
    createdAt: iso(row.createdAt),
    lastSeenAt: iso(row.lastSeenAt),
    expires: iso(row.expires)!,
    userAgent: row.userAgent ?? null,
    ipAddress: row.ipAddress ?? null,
  };
}

function clearSessionCookie(req: AuthRequest): void {
  const { name, options } = req.cookieOptions.sessionToken;
  clearCookie(req, name, options);
}

/** The signed-in user's sessions, newest first (session-control-entry.ts). */
export async function listSessions(req: AuthRequest): Promise<SessionInfo[] | undefined> {
  const adapter = controlAdapter(req);
  const me = await current(req);
  if (!me) return undefined;
  return (await adapter.listSessions(me.userId)).map((row) => info(row, me.stored));
}

/** Ends one session of the signed-in user by its `id` (session-control-entry.ts). */
export async function revokeSession(req: AuthRequest, id: string): Promise<boolean | undefined> {
  const adapter = controlAdapter(req);
  const me = await current(req);
  if (!me) return undefined;
  const own = (await adapter.listSessions(me.userId)).some((row) => row.sessionToken === id);
  if (!own) return false;
  await adapter.deleteSession(id);
  await noteEnded(req, me.userId, 'one', { id });
  if (id === me.stored) clearSessionCookie(req);
  return true;
}

/** JWT sessions can end the others only when the adapter keeps "sessions valid after" times. */
function jwtControl(req: AuthRequest): boolean {
  if (req.config.session.strategy !== 'jwt') return false;
  if (!keepsValidAfter(req)) {
    throw new UnsupportedStrategy('Ending JWT sessions needs a `session.validAfter` store (e.g. redisSessionsValidAfter) or an adapter with getSessionsValidAfter and setSessionsValidAfter (PostgresAdapter has them).');
  }
  return true;
}

/** JWT: the live token's user, their other sessions ended from now on, and (`keep`) this one rewritten to outlive it. */
async function endJwtSessions(req: AuthRequest, keep: boolean): Promise<number | undefined> {
  const token = await liveToken(req);
  if (typeof token?.sub !== 'string') return undefined;
  const now = new Date();
  await endSessionsBefore(req, token.sub, now);
  await noteEnded(req, token.sub, keep ? 'others' : 'all', {});
  if (keep) await rewriteToken(req, { ...token, session_iat: now.getTime() / 1000 });
  else clearJwtCookie(req);
  // The other JWTs are not counted: each is refused at its next refresh.
  return 0;
}

/** Ends every session of the signed-in user but this one (session-control-entry.ts). */
export async function revokeOtherSessions(req: AuthRequest): Promise<number | undefined> {
  if (jwtControl(req)) return endJwtSessions(req, true);
  const adapter = controlAdapter(req);
  const me = await current(req);
  if (!me) return undefined;
  const count = await adapter.deleteSessions(me.userId, { except: me.stored });
  await noteEnded(req, me.userId, 'others', { count });
  return count;
}

/** Ends every session of the signed-in user, this one included (session-control-entry.ts). */
export async function revokeAllSessions(req: AuthRequest): Promise<number | undefined> {
  if (jwtControl(req)) return endJwtSessions(req, false);
  const adapter = controlAdapter(req);
  const me = await current(req);
  if (!me) return undefined;
  const count = await adapter.deleteSessions(me.userId);
  await noteEnded(req, me.userId, 'all', { count });
  clearSessionCookie(req);
  return count;
}
