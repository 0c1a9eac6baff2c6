// Shared by the HTTP tests: a credentials provider with one known user, a sign-in helper, and
// readers for the Set-Cookie lines and session cookie a response carries.
import { expect } from 'vitest';
import { parseSetCookie, type ParsedSetCookie } from '../support/cookie-jar.js';
import type { ClientInit, ClientResponse, TestClient } from '../support/client.js';
import type { TestAuth } from '../support/auth-app.js';
import { Credentials, type CredentialsUserConfig } from '../../src/providers/credentials.js';
import { decodeSync } from '../../src/session/jwt.js';
import type { AdapterSession, AdapterUser, JWT } from '../../src/core/types.js';

export const SESSION_COOKIE = 'authchart.session-token';
export const CSRF_COOKIE = 'authchart.csrf-token';
export const CALLBACK_COOKIE = 'authchart.callback-url';

/** What `authorize` returns for the right password: more than the session may show. */
export const ADA = { id: 'u1', name: 'Ada Lovelace', email: 'ada@example.com', image: 'https://img.example.com/ada.png', role: 'admin' };
export const PASSWORD = 'correct horse';

export function adaProvider(overrides: Partial<CredentialsUserConfig> = {}) {
  return Credentials({
    credentials: { email: { label: 'Email' }, password: { label: 'Password', type: 'password' } },
    authorize: async (c) => (c.email === ADA.email && c.password === PASSWORD ? { ...ADA } : null),
    ...overrides,
  });
}

/** Signs `client` in through the credentials form (fetching a CSRF token first). */
export async function signIn(t: TestAuth, fields: Record<string, string> = {}, client: TestClient = t.client, init?: ClientInit): Promise<ClientResponse> {
  const csrfToken = await t.csrfToken(client);
  return client.post('/auth/callback/credentials', { csrfToken, email: ADA.email, password: PASSWORD, ...fields }, init);
}

/** Parsed Set-Cookie lines of a response whose name is `name` or one of its chunks `name.N`. */
export function cookiesNamed(res: ClientResponse, name: string): ParsedSetCookie[] {
  return res.setCookie
    .map((line) => parseSetCookie(line)!)
    .filter((c) => c.name === name || new RegExp(`^${name.replace(/[.]/g, '\\.')}\\.\\d+$`).test(c.name));
}

/** Session cookies this response sets with a value (not deletions). */
export function sessionWrites(res: ClientResponse, name = SESSION_COOKIE): ParsedSetCookie[] {
  return cookiesNamed(res, name).filter((c) => c.value !== '' && c.maxAge !== 0);
}

/** Session cookies this response deletes. */
export function sessionClears(res: ClientResponse, name = SESSION_COOKIE): ParsedSetCookie[] {
  return cookiesNamed(res, name).filter((c) => c.maxAge === 0);
}

/** The session token a client holds, reassembled from chunks if needed. */
export function sessionToken(client: TestClient, name = SESSION_COOKIE): string | undefined {
  const plain = client.cookies.get(name);
  if (plain) return plain;
  const chunks = client.cookies
    .all()
    .filter((c) => c.name.startsWith(`${name}.`))
    .sort((a, b) => Number(a.name.slice(name.length + 1)) - Number(b.name.slice(name.length + 1)));
  return chunks.length ? chunks.map((c) => c.value).join('') : undefined;
}

/** Opens a session token with the given secrets (throws when they cannot). */
export function openToken(token: string, secret: string | string[], salt = SESSION_COOKIE): JWT {
  return decodeSync({ token, secret, salt })!;
}

export const NO_CACHE = { 'cache-control': 'private, no-cache, no-store', expires: '0', pragma: 'no-cache' };

export function expectNoCache(res: Response): void {
  expect(Object.fromEntries(Object.keys(NO_CACHE).map((k) => [k, res.headers.get(k)]))).toEqual(NO_CACHE);
}

/** A small in-memory adapter with the methods the database strategy needs. */
export function memoryAdapter() {
  const users = new Map<string, AdapterUser>();
  const sessions = new Map<string, AdapterSession>();
  const adapter = {
    users,
    sessions,
    createUser: (user: AdapterUser) => (users.set(user.id, { ...user }), { ...user }),
    getUser: (id: string) => users.get(id) ?? null,
    getUserByEmail: (email: string) => [...users.values()].find((u) => u.email === email) ?? null,
    getUserByAccount: () => null,
    updateUser: (user: Partial<AdapterUser> & { id: string }) => {
      const next = { ...users.get(user.id)!, ...user };
      users.set(user.id, next);
      return next;
    },
    linkAccount: () => undefined,
    createSession: (s: AdapterSession) => (sessions.set(s.sessionToken, { ...s }), { ...s }),
    getSessionAndUser: (token: string) => {
      const session = sessions.get(token);
      return session ? { session: { ...session }, user: { ...users.get(session.userId)! } } : null;
    },
    updateSession: (s: Partial<AdapterSession> & { sessionToken: string }) => {
      const next = { ...sessions.get(s.sessionToken)!, ...s };
      sessions.set(s.sessionToken, next);
      return next;
    },
    deleteSession: (token: string) => {
      const s = sessions.get(token) ?? null;
      sessions.delete(token);
      return s;
    },
  };
  return adapter;
}
