// Account adoption through credentials with database sessions: `authorize` knows someone by an id of its own and
// returns an e-mail address another user (signed up by magic link, or through OAuth) already has. The sign-in must
// not land in that user: it fails with AccountNotLinked unless the provider opts in with
// `allowDangerousEmailAccountLinking`, and a credentials user is found again through its own `credentials` account.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthConfig } from '../../src/core/options.js';
import { Credentials, type CredentialsUserConfig } from '../../src/providers/credentials.js';
import { ORIGIN, testAuth, type TestAuth } from '../support/auth-app.js';
import type { TestClient } from '../support/client.js';
import { memoryOutbox, signInByLink } from '../support/magic-link.js';
import { adapterCalls, PASSWORD, pgliteDatabase, readSession, writes, type TestDatabase } from '../session/database-harness.js';
import { storedSessionToken } from '../../src/session/session-token.js';

let d: TestDatabase;
beforeAll(async () => {
  d = await pgliteDatabase();
});
afterAll(async () => {
  await d?.close();
});

let serial = 0;
const victimAddress = () => `victim-${++serial}@example.com`;

/**
 * The app's own user store, as `authorize` sees it: someone registered the victim's address under the id
 * `attacker-id` (a sign-up that does not verify addresses), and the password is right.
 */
function attackerCredentials(email: string, options: Partial<CredentialsUserConfig> = {}) {
  return Credentials({
    credentials: { username: { label: 'Username' }, password: { label: 'Password', type: 'password' } },
    authorize: async (c) => (c.password === PASSWORD ? { id: `attacker-id-${email}`, email, name: 'Attacker' } : null),
    ...options,
  });
}

function app(providers: AuthConfig['providers'], config: Partial<AuthConfig> = {}): TestAuth {
  return testAuth({ adapter: d.adapter, session: { strategy: 'database' }, providers, ...config });
}

async function credentialsSignIn(t: TestAuth, client: TestClient = t.newClient()) {
  const csrfToken = await t.csrfToken(client);
  return { client, res: await client.post('/auth/callback/credentials', { csrfToken, username: 'attacker', password: PASSWORD, callbackUrl: '/after' }) };
}

const userOfSession = async (token: string) => (await d.sql<{ user_id: string }>('SELECT user_id FROM sessions WHERE session_token = $1', [storedSessionToken(token)]))[0]?.user_id;
const credentialsRows = (email: string) => d.sql('SELECT user_id FROM accounts WHERE provider = $1 AND provider_account_id = $2', ['credentials', `attacker-id-${email}`]);

/** A user made by the e-mail flow: the owner proved the address with a magic link. */
async function emailVictim(email: string): Promise<string> {
  const outbox = memoryOutbox();
  const t = app([outbox.provider]);
  const res = await signInByLink(t, outbox, email);
  expect(res.location?.href).toBe(`${ORIGIN}/after`);
  return (await d.sql<{ id: string }>('SELECT id FROM users WHERE email = $1', [email]))[0]!.id;
}

/** A user made by an OAuth sign-in: the user row and its provider account, as the OAuth flow writes them. */
async function oauthVictim(email: string): Promise<string> {
  const user = await d.adapter.createUser({ id: crypto.randomUUID(), email, name: 'Victim', emailVerified: null });
  await d.adapter.linkAccount({ provider: 'github', type: 'oauth', providerAccountId: `gh-${email}`, userId: user.id });
  return user.id;
}

describe.each([
  ['an e-mail (magic link) user', emailVictim],
  ['an OAuth user', oauthVictim],
])('credentials returning the address of %s', (_who, makeVictim) => {
  it('refuses the sign-in with AccountNotLinked on the sign-in page: no session, no account, no user', async () => {
    const email = victimAddress();
    const victimId = await makeVictim(email);
    const sessionsBefore = await d.sql('SELECT session_token FROM sessions WHERE user_id = $1', [victimId]);
    const t = app([attackerCredentials(email)]);

    const { client, res } = await credentialsSignIn(t);
    expect(res.status).toBe(302);
    expect(res.location?.href).toBe(`${ORIGIN}/auth/signin?error=AccountNotLinked`);
    expect(writes(res)).toEqual([]);
    expect((await readSession(client)).body).toBeNull();
    expect(t.logger.errorTypes()).toEqual(['AccountNotLinked']);
    expect(await d.sql('SELECT session_token FROM sessions WHERE user_id = $1', [victimId])).toEqual(sessionsBefore);
    expect(await credentialsRows(email)).toEqual([]);
    expect(await d.sql('SELECT id FROM users WHERE email = $1', [email])).toEqual([{ id: victimId }]);
    // The sign-in page explains the error (it is a client-safe sign-in error).
    expect(await (await client.get(res.location!)).text()).toContain('already linked to another user');
  });
});

describe('opting in with allowDangerousEmailAccountLinking', () => {
  it('links the credentials account to the user with that address, and finds the user through it afterwards', async () => {
    const email = victimAddress();
    const victimId = await emailVictim(email);
    const linked: unknown[] = [];
    const t = app([attackerCredentials(email, { allowDangerousEmailAccountLinking: true })], { events: { linkAccount: (m) => void linked.push(m.account) } });

    const first = await credentialsSignIn(t);
    expect(first.res.location?.href).toBe(`${ORIGIN}/after`);
    expect(await userOfSession(writes(first.res)[0]!.value)).toBe(victimId);
    expect(linked).toEqual([{ provider: 'credentials', type: 'credentials', providerAccountId: `attacker-id-${email}`, userId: victimId }]);
    expect(await credentialsRows(email)).toEqual([{ user_id: victimId }]);

    const from = t.logger.debugs.length;
    const second = await credentialsSignIn(t);
    expect(await userOfSession(writes(second.res)[0]!.value)).toBe(victimId);
    expect(adapterCalls(t, from)).toEqual(['getUserByAccount', 'withTransaction', 'createSession']);
    expect(linked).toHaveLength(1);
  });
});

describe('a credentials user of its own', () => {
  it('is created with its credentials account in one go, and found through that account the next time', async () => {
    const email = victimAddress();
    const t = app([attackerCredentials(email)]);
    const first = await credentialsSignIn(t);
    const userId = await userOfSession(writes(first.res)[0]!.value);
    expect(await credentialsRows(email)).toEqual([{ user_id: userId }]);
    const from = t.logger.debugs.length;
    const second = await credentialsSignIn(t);
    expect(await userOfSession(writes(second.res)[0]!.value)).toBe(userId);
    expect(adapterCalls(t, from)).toEqual(['getUserByAccount', 'withTransaction', 'createSession']);
    // A later magic link for that address is a sign-in to the same user, not a second one.
    const outbox = memoryOutbox();
    const mail = app([outbox.provider]);
    await signInByLink(mail, outbox, email);
    expect(await d.sql('SELECT id FROM users WHERE email = $1', [email])).toEqual([{ id: userId }]);
  });

  it('an id authorize returns that names a stored user with another address is refused (ids from another system)', async () => {
    const email = victimAddress();
    const victimId = await oauthVictim(email);
    const colliding = Credentials({ authorize: async () => ({ id: victimId, email: 'someone-else@example.com' }) });
    const t = app([colliding]);
    const { res } = await credentialsSignIn(t);
    // authorize's id is never looked up as the store's: the new user it would make collides with the stored one, and
    // the sign-in is refused as the server's problem (the app's ids overlap the store's), never a session as the victim.
    expect(res.location?.href).toBe(`${ORIGIN}/auth/error?error=Configuration`);
    expect(writes(res)).toEqual([]);
    expect(await d.sql('SELECT email FROM users WHERE id = $1', [victimId])).toEqual([{ email }]);
  });
});
