// Database sessions: the cookie holds only a random session token, stored as its SHA-256; the row is the truth.
// The row's expiry moves at most once per `updateAge`, and the cookie is re-issued only when it moved.
import { noteActivity } from '../activity/run.js';
import { admitActivity } from '../activity/write.js';
import { AdapterError, MissingAdapter, ServiceUnavailable, SessionTokenError } from '../core/errors.js';
import { outage } from '../core/store-deadline.js';
import type { AdapterSession, AdapterUser, Session, SessionVerification } from '../core/types.js';
import type { AdapterMembership } from '../core/organizations.js';
import { dispatchEvent } from '../core/events.js';
import type { RequestContext as AuthRequest } from '../core/request-context.js';
import { clearCookie, setCookie } from '../core/request-context.js';
import { authjsSessionCookie, clearAuthjsCookies } from './authjs-migration.js';
import type { SessionStrategyImpl } from './types.js';
import { knownMethods, withMethod } from './verification.js';
import { isStoredSessionToken, storedSessionToken as stored } from './session-token.js';
import { clientAddress } from '../core/client-address.js';
import { clearSessionFacts, keepsSessionFacts, readSessionFacts, writeSessionFacts } from './session-facts.js';

/** A session row as read, with its user. */
interface Loaded {
  row: AdapterSession;
  user: AdapterUser;
  /** The membership in the row's active organization, when the adapter read it with the row (null: not a member). */
  membership?: AdapterMembership | null;
}

function adapterOf(req: AuthRequest) {
  const adapter = req.config.adapter;
  if (!adapter) throw new MissingAdapter('The database session strategy needs an adapter.');
  return adapter;
}

/** The session token: authchart's cookie, or under `migrateFrom: 'authjs'` Auth.js's when authchart's is absent. */
function tokenOf(req: AuthRequest): string | undefined {
  const own = req.cookies[req.cookieOptions.sessionToken.name];
  if (own) return own;
  return req.config.migrateFrom === 'authjs' ? authjsSessionCookie(req)?.value : undefined;
}

/** Whether the token came from an Auth.js cookie (to be re-issued as authchart's). */
function fromAuthjs(req: AuthRequest): boolean {
  return req.config.migrateFrom === 'authjs' && !req.cookies[req.cookieOptions.sessionToken.name];
}

// Tokens are opaque, but no token we issue is huge or holds control characters; such a cookie is forged,
// and sending it on would only earn a database error (PostgreSQL refuses NUL) logged as an outage.
function plausible(token: string): boolean {
  return token.length <= 512 && !/[\u0000-\u001f\u007f]/.test(token);
}

function writeCookie(req: AuthRequest, sessionToken: string, expires: Date): void {
  const { name, options } = req.cookieOptions.sessionToken;
  setCookie(req, { name, value: sessionToken, options: { ...options, expires } });
}

function clearSession(req: AuthRequest): void {
  const { name, options } = req.cookieOptions.sessionToken;
  clearCookie(req, name, options);
  clearSessionFacts(req);
  if (req.config.migrateFrom === 'authjs') clearAuthjsCookies(req);
}

// Some adapters hand back `expires` as a string (JSON stores); compare instants, never representations.
function expiresOf(row: AdapterSession): Date {
  return row.expires instanceof Date ? row.expires : new Date(row.expires as unknown as string);
}

/**
 * When and how the session was last verified: from the row when the adapter keeps the facts (PostgresAdapter), else
 * from the sealed companion cookie bound to this session (every Auth.js adapter), else unknown.
 */
function verificationOf(req: AuthRequest, row: AdapterSession): SessionVerification | null {
  if (row.authTime) return { authTime: new Date(row.authTime), amr: knownMethods(row.amr) };
  if (keepsSessionFacts(req.config.adapter)) return null;
  return readSessionFacts(req, row.sessionToken);
}

async function toSession(req: AuthRequest, { row, user }: Loaded, update?: { data: unknown }): Promise<Session> {
  // The row itself (its token above all) stays on the server: a pass-through session callback must not
  // hand the HttpOnly cookie's value to client-side JavaScript.
  const session: Session = { user: { name: user.name, email: user.email, image: user.image }, expires: row.expires.toISOString() };
  // A provider refused to refresh this user's tokens (Auth.js's field): the app asks the user to sign in again.
  if (row.error === 'RefreshTokenError') session.error = row.error;
  const verification = verificationOf(req, row);
  const params = update ? { session, user, verification, newSession: update.data, trigger: 'update' as const } : { session, user, verification };
  return (await req.config.callbacks.session(params)) as Session;
}

/** What session control stores about a new session: when, which browser, from which address. */
function sessionDescription(req: AuthRequest): { createdAt: Date; userAgent: string | null; ipAddress: string | null } {
  const agent = req.request.headers.get('user-agent');
  return {
    createdAt: new Date(),
    userAgent: agent ? agent.slice(0, 512) : null,
    ipAddress: clientAddress(req.request, req.config.trustHost) ?? null,
  };
}

/**
 * `migrateFrom: 'authjs'`: the row Auth.js wrote for its cookie's token (stored as the token itself, as Auth.js
 * stores it) becomes an authchart session: a new one is issued for the same user the way sign-in issues it (cookie
 * included), the Auth.js row is deleted and its cookie cleared. An unknown or expired token is no session.
 */
async function moveAuthjsSession(req: AuthRequest, authjsToken: string): Promise<Loaded | null> {
  const adapter = adapterOf(req);
  // Auth.js stored its tokens as they are, so its rows are looked up by the cookie itself. authchart's own rows are
  // stored in a form no Auth.js token has: a value in that form is something read from the table (the session
  // list shows it as an id), never a cookie, and is refused before any lookup.
  const found = plausible(authjsToken) && !isStoredSessionToken(authjsToken) ? await adapter.getSessionAndUser(authjsToken) : null;
  clearAuthjsCookies(req);
  if (!found) return null;
  if (expiresOf(found.session).getTime() <= Date.now()) {
    await adapter.deleteSession(authjsToken).catch((err: unknown) => req.config.logger.error(err as Error));
    return null;
  }
  await databaseStrategy.issue(req, { user: found.user, account: null });
  await adapter.deleteSession(authjsToken).catch((err: unknown) => req.config.logger.error(err as Error));
  return { row: { ...found.session, expires: new Date(Date.now() + req.config.session.maxAge * 1000) }, user: found.user };
}

/** Looks the session up (one adapter call); deletes it when expired; moves its expiry when `updateAge` says so. */
async function load(req: AuthRequest): Promise<Loaded | null> {
  const sessionToken = tokenOf(req);
  if (!sessionToken) return null;
  if (fromAuthjs(req)) return moveAuthjsSession(req, sessionToken);
  const adapter = adapterOf(req);
  const found = plausible(sessionToken) ? await adapter.getSessionAndUser(stored(sessionToken)) : null;
  if (!found) {
    clearSession(req);
    return null;
  }
  const { user } = found;
  const membership = found.membership !== undefined ? { membership: found.membership } : {};
  const session = { ...found.session, expires: expiresOf(found.session) };
  const now = Date.now();
  if (session.expires.getTime() <= now) {
    // Whoever holds this token, an expired row is of no use to anyone: remove it.
    await adapter.deleteSession(stored(sessionToken)).catch((err: unknown) => req.config.logger.error(err as Error));
    clearSession(req);
    return null;
  }
  const { maxAge, updateAge } = req.config.session;
  const lastExtended = session.expires.getTime() - maxAge * 1000;
  const expires = new Date(now + maxAge * 1000);
  // Due once `updateAge` has passed since the expiry was last set; a write that would not move it is skipped,
  // so the cookie and the row never drift apart (Auth.js re-sets the cookie on every read).
  if (lastExtended + updateAge * 1000 <= now && expires.getTime() !== session.expires.getTime()) {
    try {
      // With session control, the refresh also records when the session was last seen (every `updateAge`).
      const seen = adapter.listSessions ? { lastSeenAt: new Date(now) } : {};
      await adapter.updateSession({ sessionToken: stored(sessionToken), expires, ...seen });
    } catch (err) {
      // The row was read, so the session is valid; a database that cannot write now will extend it next time.
      logFailure(req, err);
      return { row: session, user, ...membership };
    }
    writeCookie(req, sessionToken, expires);
    // The companion cookie expires with the session: it moves with it.
    const facts = keepsSessionFacts(adapter) ? null : readSessionFacts(req, session.sessionToken);
    if (facts) writeSessionFacts(req, session.sessionToken, expires, facts);
    return { row: { ...session, expires }, user, ...membership };
  }
  return { row: session, user, ...membership };
}

// The database's own failure is what an operator needs to read; anything else (a throwing session
// callback, a malformed row) is a session error wrapping it.
function logFailure(req: AuthRequest, err: unknown): void {
  if (err instanceof AdapterError) req.config.logger.error(err);
  else req.config.logger.error(new SessionTokenError(err instanceof Error ? err : String(err)));
}

async function check(req: AuthRequest, update?: { data: unknown }): Promise<Session | null> {
  try {
    const loaded = await load(req);
    if (!loaded) return null;
    const session = await toSession(req, loaded, update);
    await dispatchEvent(req.config.events, req.config.logger, 'session', { session });
    return session;
  } catch (err) {
    // The database cannot say who this is: an outage answer (503), never "signed out"; the cookie is kept for when
    // it comes back. A failing session callback is the app's error, and reads as no session as before.
    if (err instanceof AdapterError) throw unavailable(err);
    logFailure(req, err);
    return null;
  }
}

/** A session read the database could not answer: a ServiceUnavailable, whatever the adapter's failure was. */
function unavailable(err: AdapterError): ServiceUnavailable {
  return err instanceof ServiceUnavailable ? err : outage(err, { method: err.cause?.method });
}

export const databaseStrategy: SessionStrategyImpl = {
  async open(req) {
    const loaded = await load(req);
    if (!loaded) return null;
    const { row, user, membership } = loaded;
    if (!row.organizationId) return { userId: String(user.id), verification: verificationOf(req, row) };
    return { userId: String(user.id), verification: verificationOf(req, row), organizationId: String(row.organizationId), ...(membership !== undefined ? { membership } : {}) };
  },

  read: (req) => check(req),

  update: (req, data) => check(req, { data }),

  async issue(req, { user, verification }, tx, activity) {
    const adapter = tx ?? adapterOf(req);
    if (user.id === undefined || user.id === null || user.id === '') {
      throw new SessionTokenError('Cannot create a database session for a user without an id.');
    }
    const previous = tokenOf(req);
    const sessionToken = req.config.session.generateSessionToken();
    const expires = new Date(Date.now() + req.config.session.maxAge * 1000);
    // Ids compare and travel as strings; an adapter with numeric ids (Auth.js's SQL schemas) casts them back.
    // With session control, the row also says when and from what it was made (the list of devices shows it).
    // Only the keys of the Auth.js contract, unless the adapter says it keeps the facts (Auth.js adapters insert
    // every key they get, or drop them): the facts then travel in the sealed companion cookie.
    const described = adapter.listSessions ? sessionDescription(req) : {};
    const own = keepsSessionFacts(adapter);
    const verified = verification && own ? { authTime: verification.authTime, amr: verification.amr } : {};
    const row = { sessionToken: stored(sessionToken), userId: String(user.id), expires, ...described, ...verified };
    if (activity && tx?.createSessionWithActivity) {
      // The sign-in's records in the row's own statement (one round trip fewer). They name the session by the cookie,
      // so it is written first: a failure here drops it with every other cookie of the sign-in (session/issue.ts).
      writeCookie(req, sessionToken, expires);
      activity.written = admitActivity(req, await activity.records());
      await tx.createSessionWithActivity(row, activity.written);
    } else {
      await adapter.createSession(row);
      writeCookie(req, sessionToken, expires);
    }
    if (verification && !own) writeSessionFacts(req, stored(sessionToken), expires, verification);
    else clearSessionFacts(req);
    // The session this browser held before is replaced: its row would otherwise stay valid, held by no one. In a
    // transaction, only once the new one is committed (and outside it: a failed delete must not abort the commit).
    const endPrevious = async () => {
      if (previous && previous !== sessionToken && plausible(previous)) {
        await adapterOf(req).deleteSession(stored(previous)).catch((err: unknown) => req.config.logger.error(err as Error));
      }
    };
    if (tx) return endPrevious;
    await endPrevious();
  },

  async signOut(req) {
    const sessionToken = tokenOf(req);
    let session: AdapterSession | null | undefined = null;
    if (sessionToken && plausible(sessionToken)) {
      try {
        session = (await adapterOf(req).deleteSession(stored(sessionToken))) ?? null;
      } catch (err) {
        logFailure(req, err);
      }
    }
    if (session) await noteActivity(req, { kind: 'session.ended', userId: String(session.userId), reason: 'signOut' });
    clearSession(req);
    await dispatchEvent(req.config.events, req.config.logger, 'signOut', { session });
  },

  async reverify(req, method) {
    const loaded = await load(req);
    if (!loaded) return false;
    const adapter = adapterOf(req);
    const { row } = loaded;
    if (!keepsSessionFacts(adapter)) {
      // The row is live (just read); the facts are the cookie's, re-sealed for this session.
      writeSessionFacts(req, row.sessionToken, row.expires, { authTime: new Date(), amr: withMethod(verificationOf(req, row)?.amr, method) });
      return true;
    }
    const updated = await adapter.updateSession({ sessionToken: row.sessionToken, authTime: new Date(), amr: withMethod(row.amr, method) });
    return Boolean(updated);
  },

  async setOrganization(req, organizationId) {
    const loaded = await load(req);
    if (!loaded) return false;
    // The row keeps it (an adapter with the organization methods stores `organizationId` with the session).
    return Boolean(await adapterOf(req).updateSession({ sessionToken: loaded.row.sessionToken, organizationId }));
  },
};
