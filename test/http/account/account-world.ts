// A signed-in world for the account page's actions over HTTP: PostgresAdapter on PGlite, database sessions, a
// credentials provider that signs a stored user in by address, a Passkey provider, and passkeys seeded as rows
// (authenticator and its `webauthn` account), as the link stage writes them.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { PostgresAdapterInstance } from '../../../src/adapters/postgres/index.js';
import type { AuthConfig } from '../../../src/core/options.js';
import type { AdapterUser } from '../../../src/core/types.js';
import { Credentials } from '../../../src/providers/credentials.js';
import { Passkey } from '../../../src/providers/webauthn.js';
import { testAuth, type TestAuth } from '../../support/auth-app.js';
import type { TestClient } from '../../support/client.js';

export const CHROME_LINUX = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
export const FIREFOX_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0';

/** The app: database sessions by default (JWT with `strategy`). */
export function accountApp(adapter: PostgresAdapterInstance, config: Partial<AuthConfig> = {}): TestAuth {
  const credentials = Credentials({ credentials: { email: { label: 'Email' } }, authorize: async (c) => adapter.getUserByEmail(String(c.email)) });
  return testAuth({ adapter, session: { strategy: 'database' }, providers: [credentials, Passkey()], experimental: { enableWebAuthn: true }, ...config });
}

/** A stored user with `passkeys` passkeys (credential ids returned). */
export async function userWithPasskeys(adapter: PostgresAdapterInstance, passkeys: number): Promise<{ user: AdapterUser; credentials: string[] }> {
  const user = await adapter.createUser({ id: randomUUID(), email: `${randomUUID()}@example.test`, emailVerified: null });
  const credentials: string[] = [];
  for (let i = 0; i < passkeys; i++) {
    const credentialID = Buffer.from(randomUUID()).toString('base64');
    await adapter.linkAccount({ userId: user.id, type: 'webauthn', provider: 'passkey', providerAccountId: credentialID });
    await adapter.createAuthenticator({ credentialID, userId: user.id, providerAccountId: credentialID, credentialPublicKey: 'cGs=', counter: 0, credentialDeviceType: 'singleDevice', credentialBackedUp: false, transports: 'internal' });
    credentials.push(credentialID);
  }
  return { user, credentials };
}

/** Signs `user` in on `client` with a user agent. */
export async function signIn(t: TestAuth, client: TestClient, user: AdapterUser, agent = CHROME_LINUX, address?: string): Promise<void> {
  const csrfToken = await t.csrfToken(client);
  const res = await client.post('/auth/callback/credentials', { csrfToken, email: user.email! }, { headers: { 'user-agent': agent, ...(address ? { 'x-forwarded-for': address } : {}) } });
  expect(res.status).toBe(302);
}

/** The account page as `client` sees it (at `url`: where an action sent it back). */
export async function accountPage(client: TestClient, url: string | URL = '/auth/account', agent = CHROME_LINUX): Promise<string> {
  const res = await client.get(url, { headers: { accept: 'text/html', 'user-agent': agent } });
  expect(res.status).toBe(200);
  return res.text();
}

/** The session ids `client`'s user has, as the JSON listing gives them. */
export async function sessionIds(client: TestClient): Promise<{ id: string; current: boolean }[]> {
  return ((await (await client.get('/auth/sessions')).json()) as { sessions: { id: string; current: boolean }[] }).sessions;
}

/** POSTs an account form with the client's CSRF token. */
export async function postForm(t: TestAuth, client: TestClient, path: string, fields: Record<string, string>) {
  return client.post(path, { csrfToken: await t.csrfToken(client), ...fields }, { headers: { accept: 'text/html' } });
}

/** Whether the client still has a session. */
export const signedIn = async (client: TestClient): Promise<boolean> => ((await (await client.get('/auth/session')).json()) as unknown) !== null;
