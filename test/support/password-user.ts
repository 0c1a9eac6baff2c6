// A stored user with a password, signed in by it on `t` (its default client), as the signed-in password flows'
// tests start: the user's id and address, and a CSRF token of the signed-in client.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { Adapter } from '../../src/core/adapter.js';
import { hashNewPassword, type PasswordHasher } from '../../src/providers/password/index.js';
import { ORIGIN, type TestAuth } from './auth-app.js';

export async function signedInWithPassword(t: TestAuth, adapter: Adapter, password: string, hasher: PasswordHasher): Promise<{ id: string; email: string; csrfToken: string }> {
  const email = `kim-${randomUUID()}@example.test`;
  const { id } = await adapter.createUser!({ id: randomUUID(), email, emailVerified: new Date() });
  await adapter.setPasswordHash!(id, await hashNewPassword(password, { hasher }));
  const signedIn = await t.client.post('/auth/callback/password', { csrfToken: await t.csrfToken(), email, password, callbackUrl: `${ORIGIN}/home` });
  expect(signedIn.location?.href).toBe(`${ORIGIN}/home`);
  return { id, email, csrfToken: await t.csrfToken() };
}
