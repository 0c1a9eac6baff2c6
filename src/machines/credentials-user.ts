// Who a credentials sign-in is, in storage terms: as returned by `authorize` for JWT sessions,
// or an adapter user (found by id or e-mail, else created) when sessions live in the database.
import { randomUUID } from 'node:crypto';
import type { AdapterUser, User } from '../core/types.js';
import type { FlowServices } from './services.js';

/**
 * The user a credentials sign-in stands for. With database sessions (which Auth.js refuses for credentials)
 * the session row needs a stored user: the one with `authorize`'s id, else the one with its e-mail, else a new
 * one made of the standard fields only (an adapter may reject columns it does not have).
 *
 * @example
 * const { user, isNewUser } = await resolveCredentialsUser(services, { id: '42', email: 'ada@example.com' })
 */
export async function resolveCredentialsUser(s: FlowServices, user: User): Promise<{ user: User | AdapterUser; isNewUser: boolean }> {
  const { adapter, session } = s.req.config;
  const id = user.id === undefined || user.id === null || user.id === '' ? undefined : String(user.id);
  if (session.strategy !== 'database' || !adapter) return { user: { ...user, id: id ?? randomUUID() }, isNewUser: false };
  if (id) {
    const byId = await adapter.getUser(id);
    if (byId) return { user: byId, isNewUser: false };
  }
  if (user.email) {
    const byEmail = await adapter.getUserByEmail(user.email);
    if (byEmail) return { user: byEmail, isNewUser: false };
  }
  const created = await adapter.createUser({
    id: id ?? randomUUID(),
    name: user.name ?? null,
    // No address is stored as NULL, not '': e-mail columns are unique, and '' would fit only one user.
    email: (user.email || null) as string,
    emailVerified: null,
    image: user.image ?? null,
  });
  return { user: created, isNewUser: true };
}
