// The records of account changes and refusals, over HTTP with the PostgresAdapter on PGlite: a password changed, a
// passkey removed, an account unlinked, a rate limit hit, and sign-ins the app's signIn callback refused (false) or
// sent elsewhere (a URL): each leaves its record, and a refused sign-in never a success.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ActivityKind, ActivityRecord } from '../../src/activity/types.js';
import { Credentials } from '../../src/providers/credentials.js';
import { OAuth } from '../../src/providers/oauth.js';
import { Passkey } from '../../src/providers/webauthn.js';
import { hashNewPassword, Password, type SignUpMail } from '../../src/providers/password/index.js';
import { testAuth } from '../support/auth-app.js';
import { useMigratedPGlite } from '../support/pglite.js';
import { accountApp, postForm, signIn, userWithPasskeys } from '../http/account/account-world.js';

const pglite = useMigratedPGlite();
const OLD = 'correct horse battery staple';
const NEW = 'a brand new long passphrase';

async function recordsOf(userId: string | null, kinds?: ActivityKind[]): Promise<ActivityRecord[]> {
  if (userId === null) return (await pglite.adapter.listActivity({ ...(kinds ? { kinds } : {}), limit: 200 })).records.filter((r) => r.userId === null);
  return (await pglite.adapter.listActivity({ userId, ...(kinds ? { kinds } : {}) })).records;
}

describe('account changes on the activity log', () => {
  it('a password changed through the change-password flow leaves password.changed', async () => {
    const adapter = pglite.adapter;
    const email = `lee-${randomUUID()}@example.com`;
    const { id } = await adapter.createUser({ id: randomUUID(), email, emailVerified: new Date() });
    await adapter.setPasswordHash(id, await hashNewPassword(OLD));
    const t = testAuth({ adapter, session: { strategy: 'database' }, throttle: { enabled: false }, activity: {}, providers: [Password()] });
    await t.client.post('/auth/callback/password', { csrfToken: await t.csrfToken(), email, password: OLD, callbackUrl: '/home' });
    await t.client.post('/auth/flows/change-password/start', { csrfToken: await t.csrfToken() });
    const res = await t.client.post('/auth/flows/change-password', { csrfToken: await t.csrfToken(), current: OLD, next: NEW }, { json: true });
    expect(res.status).toBeLessThan(400);
    const changed = await recordsOf(id, ['password.changed']);
    expect(changed).toHaveLength(1);
    expect(changed[0]).toMatchObject({ userId: id, method: 'password' });
    expect(JSON.stringify(await recordsOf(id))).not.toContain(NEW);
  });

  it('a password changed is recorded even when ending the other sessions then fails', async () => {
    const real = pglite.adapter;
    // The database goes down just after the hash is written, as the other sessions are ended.
    const adapter = new Proxy(real, {
      get: (target, name) => (name === 'deleteSessions' ? async () => Promise.reject(Object.assign(new Error('connect ECONNREFUSED (injected)'), { code: 'ECONNREFUSED' })) : Reflect.get(target, name)),
    });
    const email = `lee-${randomUUID()}@example.com`;
    const { id } = await real.createUser({ id: randomUUID(), email, emailVerified: new Date() });
    await real.setPasswordHash(id, await hashNewPassword(OLD));
    const t = testAuth({ adapter, session: { strategy: 'database' }, throttle: { enabled: false }, activity: {}, providers: [Password()] });
    await t.client.post('/auth/callback/password', { csrfToken: await t.csrfToken(), email, password: OLD, callbackUrl: '/home' });
    await t.client.post('/auth/flows/change-password/start', { csrfToken: await t.csrfToken() });
    await t.client.post('/auth/flows/change-password', { csrfToken: await t.csrfToken(), current: OLD, next: NEW });
    // The new password is in place, so its record is too, whatever the answer said of the sessions.
    expect(await Password().password.hasher!.verify((await real.getPasswordHash(id))!, NEW)).toBe(true);
    expect(await recordsOf(id, ['password.changed'])).toHaveLength(1);
  });

  it('a password sign-up proven by its link leaves signUp.completed, then signIn.succeeded', async () => {
    const outbox: SignUpMail[] = [];
    const t = testAuth({ adapter: pglite.adapter, session: { strategy: 'database' }, throttle: { enabled: false }, activity: {}, providers: [Password({ signUp: { send: (mail) => void outbox.push(mail) } })] });
    const email = `ada-${randomUUID()}@example.com`;
    const asked = await t.client.post('/auth/signup/password', { csrfToken: await t.csrfToken(), email, password: OLD });
    expect(asked.status).toBe(200);
    const mail = outbox.find((m) => m.to === email);
    expect(mail?.kind).toBe('verify');
    const opened = await t.newClient().get((mail as { url: string }).url);
    expect(opened.status).toBe(302);
    const user = await pglite.adapter.getUserByEmail(email);
    const records = await recordsOf(user!.id);
    expect(records.map((r) => r.kind).sort()).toEqual(['signIn.succeeded', 'signUp.completed']);
    // The Password provider is a credentials provider: the records name it, and its method.
    expect(records.map((r) => [r.provider, r.method])).toEqual([['password', 'credentials'], ['password', 'credentials']]);
    expect(JSON.stringify(records)).not.toContain(OLD);
  });

  it('a passkey removed from the account page leaves passkey.removed', async () => {
    const t = accountApp(pglite.adapter, { activity: {} });
    const { user, credentials } = await userWithPasskeys(pglite.adapter, 2);
    await signIn(t, t.client, user);
    const removed = await postForm(t, t.client, '/auth/account/passkeys/remove', { id: credentials[0]! });
    expect(removed.status).toBe(302);
    expect((await recordsOf(user.id, ['passkey.removed'])).map((r) => r.method)).toEqual(['webauthn']);
  });

  it('an account unlinked leaves account.unlinked naming its provider', async () => {
    const idp = OAuth({ id: 'idp', name: 'Company IdP', clientId: 'c', clientSecret: 's', authorization: 'https://idp.invalid/authorize', token: 'https://idp.invalid/token', userinfo: 'https://idp.invalid/userinfo' });
    const t = accountApp(pglite.adapter, { activity: {}, providers: [Credentials({ credentials: { email: { label: 'Email' } }, authorize: async (c) => pglite.adapter.getUserByEmail(String(c.email)) }), Passkey(), idp] });
    const { user } = await userWithPasskeys(pglite.adapter, 1);
    await pglite.adapter.linkAccount({ userId: user.id, type: 'oauth', provider: 'idp', providerAccountId: `idp-${randomUUID()}` });
    const row = (await pglite.db.query<{ provider_account_id: string }>(`SELECT provider_account_id FROM accounts WHERE user_id = $1 AND provider = 'idp'`, [user.id])).rows[0]!;
    await signIn(t, t.client, user);
    const res = await postForm(t, t.client, `/auth/unlink/idp/${encodeURIComponent(row.provider_account_id)}`, {});
    expect(res.status).toBe(302);
    expect((await recordsOf(user.id, ['account.unlinked']))[0]).toMatchObject({ provider: 'idp', method: 'oauth' });
  });

  it('a rate limit hit leaves rateLimit.hit', async () => {
    const provider = Credentials({ credentials: { email: {}, password: {} }, authorize: () => null });
    const t = testAuth({ adapter: pglite.adapter, activity: {}, throttle: { enabled: true }, providers: [provider] });
    const email = `rl-${randomUUID()}@example.com`;
    const statuses: number[] = [];
    for (let i = 0; i < 14; i++) statuses.push((await t.client.post('/auth/callback/credentials', { csrfToken: await t.csrfToken(), email, password: `guess-${i}` })).status);
    expect(statuses).toContain(429);
    const hits = (await recordsOf(null, ['rateLimit.hit'])).filter((r) => r.provider === 'credentials');
    expect(hits.length).toBeGreaterThan(0);
    expect(typeof hits[0]!.reason).toBe('string');
  });
});

describe("sign-ins the app's signIn callback refuses", () => {
  const provider = Credentials({ credentials: { email: {} }, authorize: async (c) => pglite.adapter.getUserByEmail(String(c.email)) });
  async function attempt(signInCallback: () => boolean | string) {
    const user = await pglite.adapter.createUser({ id: randomUUID(), email: `${randomUUID()}@example.test`, emailVerified: null });
    const t = testAuth({ adapter: pglite.adapter, session: { strategy: 'database' }, activity: {}, callbacks: { signIn: signInCallback }, providers: [provider] });
    const res = await t.client.post('/auth/callback/credentials', { csrfToken: await t.csrfToken(), email: user.email!, callbackUrl: '/home' });
    const session = await (await t.client.get('/auth/session')).json();
    // The run's records, by its correlation id (the flow record's id). The user authorize named is not a stored
    // user the sign-in vouched for yet, so the refusal names nobody, as every failure before a session does.
    const flow = t.logger.debugs.find((d) => d.message.startsWith('flow credentials '))!.metadata as { id: string };
    const all = (await pglite.adapter.listActivity({ limit: 200 })).records;
    return { user, res, session, records: all.filter((r) => r.correlationId === flow.id), mine: await recordsOf(user.id) };
  }

  it('false: a refused record (AccessDenied), no success, no session', async () => {
    const { res, session, records, mine } = await attempt(() => false);
    expect(res.status).toBe(302);
    expect(session).toBeNull();
    expect(records.map((r) => r.kind)).toEqual(['signIn.failed']);
    expect(records[0]).toMatchObject({ reason: 'AccessDenied', method: 'credentials', provider: 'credentials' });
    expect(mine).toEqual([]);
  });

  it('a URL (tail-redirected): a refused record marked redirected, no success, no session, never the URL', async () => {
    const { res, session, records, mine } = await attempt(() => '/auth/elsewhere?secret-ish=1');
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toContain('/auth/elsewhere');
    expect(session).toBeNull();
    expect(records.map((r) => r.kind)).toEqual(['signIn.failed']);
    expect(records[0]).toMatchObject({ reason: 'AccessDenied', method: 'credentials', detail: { redirected: true } });
    expect(mine).toEqual([]);
    expect(JSON.stringify(records)).not.toContain('elsewhere');
  });
});
