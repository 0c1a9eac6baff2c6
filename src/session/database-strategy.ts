// Database sessions: the cookie holds only a random session token; the row is the truth.
// The row's expiry moves at most once per `updateAge`, and the cookie is re-issued only when it moved.
import { AdapterError, MissingAdapter, SessionTokenError } from '../core/errors.js';
import type { AdapterSession, AdapterUser, Session } from '../core/types.js';
import { dispatchEvent } from '../core/events.js';
import type { AuthRequest } from '../http/request.js';
import { clearCookie, setCookie } from '../http/response.js';
import type { SessionStrategyImpl } from './strategy.js';

function adapterOf(req: AuthRequest) {
  const adapter = req.config.adapter;
  if (!adapter) throw new MissingAdapter('The database session strategy needs an adapter.');
  return adapter;
}

function tokenOf(req: AuthRequest): string | undefined {
  const value = req.cookies[req.cookieOptions.sessionToken.name];
  // Tokens are opaque, but a sane bound keeps absurd values away from the database.
  return value && value.length <= 512 ? value : undefined;
}

function writeCookie(req: AuthRequest, sessionToken: string, expires: Date): void {
  const { name, options } = req.cookieOptions.sessionToken;
  setCookie(req, { name, value: sessionToken, options: { ...options, expires } });
}

function clearSession(req: AuthRequest): void {
  const { name, options } = req.cookieOptions.sessionToken;
  clearCookie(req, name, options);
}

async function toSession(req: AuthRequest, row: AdapterSession, user: AdapterUser, update?: { data: unknown }): Promise<Session> {
  const base: Session = { user: { name: user.name, email: user.email, image: user.image }, expires: row.expires.toISOString() };
  const params = update
    ? { session: { ...row, ...base } as unknown as Session, user, newSession: update.data, trigger: 'update' as const }
    : { session: { ...row, ...base } as unknown as Session, user };
  return (await req.config.callbacks.session(params)) as Session;
}

/** Looks the session up; deletes it when expired; moves its expiry when `updateAge` says so. */
async function load(req: AuthRequest): Promise<{ row: AdapterSession; user: AdapterUser } | null> {
  const sessionToken = tokenOf(req);
  if (!sessionToken) return null;
  const adapter = adapterOf(req);
  const found = await adapter.getSessionAndUser(sessionToken);
  if (!found) {
    clearSession(req);
    return null;
  }
  const { session, user } = found;
  const now = Date.now();
  if (session.expires.getTime() <= now) {
    await Promise.resolve(adapter.deleteSession(sessionToken)).catch(() => {});
    clearSession(req);
    return null;
  }
  const { maxAge, updateAge } = req.config.session;
  const refreshAt = session.expires.getTime() - maxAge * 1000 + updateAge * 1000;
  if (refreshAt <= now) {
    const expires = new Date(now + maxAge * 1000);
    await adapter.updateSession({ sessionToken, expires });
    writeCookie(req, sessionToken, expires);
    return { row: { ...session, expires }, user };
  }
  return { row: session, user };
}

function logFailure(req: AuthRequest, err: unknown): void {
  const error = err instanceof AdapterError ? new SessionTokenError(err, { err }) : new SessionTokenError(err instanceof Error ? err : String(err));
  req.config.logger.error(error);
}

export const databaseStrategy: SessionStrategyImpl = {
  async read(req) {
    try {
      const loaded = await load(req);
      if (!loaded) return null;
      const session = await toSession(req, loaded.row, loaded.user);
      await dispatchEvent(req.config.events, req.config.logger, 'session', { session });
      return session;
    } catch (err) {
      // Database down: no session, and the cookie is kept for when it comes back.
      logFailure(req, err);
      return null;
    }
  },

  async issue(req, { user }) {
    const adapter = adapterOf(req);
    if (!user.id) throw new SessionTokenError('Cannot create a database session for a user without an id.');
    const sessionToken = req.config.session.generateSessionToken();
    const expires = new Date(Date.now() + req.config.session.maxAge * 1000);
    await adapter.createSession({ sessionToken, userId: user.id, expires });
    writeCookie(req, sessionToken, expires);
  },

  async update(req, data) {
    try {
      const loaded = await load(req);
      if (!loaded) return null;
      const session = await toSession(req, loaded.row, loaded.user, { data });
      await dispatchEvent(req.config.events, req.config.logger, 'session', { session });
      return session;
    } catch (err) {
      logFailure(req, err);
      return null;
    }
  },

  async signOut(req) {
    const sessionToken = tokenOf(req);
    let session: AdapterSession | null | undefined = null;
    if (sessionToken) {
      try {
        session = (await adapterOf(req).deleteSession(sessionToken)) ?? null;
      } catch (err) {
        req.config.logger.error(err as Error);
      }
    }
    clearSession(req);
    await dispatchEvent(req.config.events, req.config.logger, 'signOut', { session });
  },

  async currentUserId(req) {
    const sessionToken = tokenOf(req);
    if (!sessionToken) return undefined;
    try {
      const found = await adapterOf(req).getSessionAndUser(sessionToken);
      return found && found.session.expires.getTime() > Date.now() ? String(found.user.id) : undefined;
    } catch {
      return undefined;
    }
  },
};
