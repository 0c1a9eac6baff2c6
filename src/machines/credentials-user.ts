// Who a credentials sign-in is, in storage terms: as returned by `authorize` for JWT sessions,
// or an adapter user (found by id or e-mail, else created) when sessions live in the database.
import { randomUUID } from 'node:crypto';
import type { AdapterUser, User } from '../core/types.js';
import type { FlowServices } from './services.js';

export async function resolveCredentialsUser(s: FlowServices, user: User): Promise<{ user: User | AdapterUser; isNewUser: boolean }> {
  const { adapter, session } = s.req.config;
  if (session.strategy !== 'database' || !adapter) return { user: { ...user, id: user.id ? String(user.id) : randomUUID() }, isNewUser: false };
  if (user.id) {
    const byId = await adapter.getUser(String(user.id));
    if (byId) return { user: byId, isNewUser: false };
  }
  if (user.email) {
    const byEmail = await adapter.getUserByEmail(user.email);
    if (byEmail) return { user: byEmail, isNewUser: false };
  }
  const created = await adapter.createUser({ ...user, id: user.id ? String(user.id) : randomUUID(), email: user.email ?? '', emailVerified: null } as AdapterUser);
  return { user: created, isNewUser: true };
}
