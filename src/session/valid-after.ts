// JWT sessions and "sign out everywhere": the user's "sessions valid after" time, kept by `session.validAfter` (e.g.
// Redis) or else by the adapter, is compared with when a token's session began at each refresh (`updateAge`), so a
// token ended elsewhere lives at most updateAge more.
import { AdapterError } from '../core/errors.js';
import type { SessionsValidAfterStore } from '../core/options.js';
import type { JWT } from '../core/types.js';
import type { RequestContext as AuthRequest } from '../core/request-context.js';

/** When the token's session began (seconds): `session_iat`, else (older tokens) `auth_time`, else `iat`. */
export function sessionStart(token: JWT): number {
  for (const claim of [token.session_iat, token.auth_time, token.iat]) {
    if (typeof claim === 'number' && Number.isFinite(claim)) return claim;
  }
  return 0;
}

/** Whether a token's session began before `after`, its user's "sessions valid after" time (null: none kept). */
export function beganBefore(token: JWT, after: Date | string | null | undefined): boolean {
  return after !== null && after !== undefined && sessionStart(token) * 1000 < new Date(after).getTime();
}

// Each store's wrapper, made once: the store is looked at on every session check.
const typedStores = new WeakMap<SessionsValidAfterStore, SessionsValidAfterStore>();

/** The store, its failures as `AdapterError` (`cause.method` names the store call), as an adapter's are. */
function typedFailures(store: SessionsValidAfterStore): SessionsValidAfterStore {
  let typed = typedStores.get(store);
  if (!typed) typedStores.set(store, (typed = withTypedFailures(store)));
  return typed;
}

function withTypedFailures(store: SessionsValidAfterStore): SessionsValidAfterStore {
  const typed = (method: string, err: unknown) => new AdapterError(err instanceof Error ? err : new Error(String(err)), { method });
  return {
    get: async (userId) => {
      try {
        return await store.get(userId);
      } catch (err) {
        throw typed('validAfter.get', err);
      }
    },
    set: async (userId, at, keepUntil) => {
      try {
        await store.set(userId, at, keepUntil);
      } catch (err) {
        throw typed('validAfter.set', err);
      }
    },
  };
}

/** Where the request's configuration keeps "sessions valid after" times: its store, else the adapter's methods, else nowhere. */
function keeper(req: AuthRequest): SessionsValidAfterStore | undefined {
  const { session, adapter } = req.config;
  if (session.validAfter) return typedFailures(session.validAfter);
  if (!adapter?.getSessionsValidAfter || !adapter.setSessionsValidAfter) return undefined;
  return { get: (userId) => adapter.getSessionsValidAfter!(userId), set: (userId, at, keepUntil) => adapter.setSessionsValidAfter!(userId, at, keepUntil) };
}

/** Whether "sessions valid after" times are kept (a `session.validAfter` store, or an adapter with both methods). */
export function keepsValidAfter(req: AuthRequest): boolean {
  return keeper(req) !== undefined;
}

/**
 * Whether the token's session began before its user's "sessions valid after" time (it must be refused). False
 * when no time is kept, or for a token without a user id.
 */
export async function endedElsewhere(req: AuthRequest, token: JWT): Promise<boolean> {
  const times = keeper(req);
  if (!times || typeof token.sub !== 'string') return false;
  return beganBefore(token, await times.get(token.sub));
}

/**
 * Ends the user's JWT sessions that began before `at` (each at its next refresh). The time is needed until every
 * token issued before it has expired: `at` plus the JWT's `maxAge`, after which it may be pruned.
 */
export async function endSessionsBefore(req: AuthRequest, userId: string, at: Date): Promise<void> {
  const keepUntil = new Date(at.getTime() + req.config.jwt.maxAge * 1000);
  await keeper(req)!.set(userId, at, keepUntil);
}
