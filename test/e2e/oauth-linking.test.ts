// Account linking on OAuth sign-in, end to end: a real OP, authchart's HTTP layer and the PostgreSQL adapter on
// embedded PGlite (one database for the file; every test uses its own OP accounts, so tests never share users).
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresAdapter } from '../../src/adapters/postgres/index.js';
import type { Account, User } from '../../src/core/types.js';
import { OIDC } from '../../src/providers/oauth.js';
import { testAuth, type TestAuth } from '../support/auth-app.js';
import { startOidcProvider, type AccountClaims, type OidcProviderHarness } from './peers/oidc.js';
import { callbackOf, expectFailure, lastError, setsSession, signInThrough } from './oauth/harness.js';

const people = ['carol', 'dave', 'erin', 'frank', 'gina', 'hank', 'ivy', 'jack'];
const accounts: Record<string, AccountClaims> = Object.fromEntries(
  people.map((id) => [id, { email: `${id}@example.test`, email_verified: true, name: id[0].toUpperCase() + id.slice(1) }]),
);
// The same person's work identity: another subject, another e-mail address.
accounts['dave-work'] = { email: 'dave@work.test', email_verified: true, name: 'Dave at work' };
// Identities without an e-mail address (some providers withhold it).
accounts['anon-1'] = { name: 'Anonymous one' };
accounts['anon-2'] = { name: 'Anonymous two' };

const secret = 'linking-client-secret-0123456789abcdef';
let op: OidcProviderHarness;
let db: PGlite;

beforeAll(async () => {
  const client = (id: string, redirects: string[]) => ({
    client_id: id,
    client_secret: secret,
    redirect_uris: redirects.map(callbackOf),
    response_types: ['code'],
    grant_types: ['authorization_code'],
    token_endpoint_auth_method: 'client_secret_basic',
  });
  [op, db] = await Promise.all([
    startOidcProvider({ accounts, clients: [client('client-a', ['op-a']), client('client-b', ['op-b', 'op-b-trusting'])] }),
    PGlite.create(),
  ]);
  await PostgresAdapter(db).migrate();
}, 60_000);
afterAll(async () => {
  await op?.stop();
  if (db && !db.closed) await db.close();
});

interface Recorded {
  createUser: { user: User }[];
  linkAccount: { user: User; account: Account }[];
  signIn: { user: User; account: Account | null; isNewUser?: boolean }[];
}

function app(): TestAuth & { events: Recorded } {
  const events: Recorded = { createUser: [], linkAccount: [], signIn: [] };
  const t = testAuth({
    adapter: PostgresAdapter(db),
    providers: [
      OIDC({ id: 'op-a', name: 'OP A', issuer: op.issuer, clientId: 'client-a', clientSecret: secret }),
      OIDC({ id: 'op-b', name: 'OP B', issuer: op.issuer, clientId: 'client-b', clientSecret: secret }),
      OIDC({ id: 'op-b-trusting', name: 'OP B, trusting e-mail', issuer: op.issuer, clientId: 'client-b', clientSecret: secret, allowDangerousEmailAccountLinking: true }),
    ],
    callbacks: { signIn: ({ user }) => user.email !== 'hank@example.test' },
    events: {
      createUser: (m) => void events.createUser.push(m),
      linkAccount: (m) => void events.linkAccount.push(m),
      signIn: (m) => void events.signIn.push(m),
    },
  });
  return Object.assign(t, { events });
}

const adapter = () => PostgresAdapter(db);
const ownerOf = (provider: string, providerAccountId: string) => adapter().getUserByAccount!({ provider, providerAccountId });

async function sessionEmail(t: TestAuth, client = t.client): Promise<string | undefined> {
  const body = (await (await client.get('/auth/session')).json()) as { user?: { email?: string } } | null;
  return body?.user?.email;
}

describe('account linking with the PostgreSQL adapter (PGlite)', () => {
  it('a new user: createUser and linkAccount, then a database session', async () => {
    const t = app();
    const { callback } = await signInThrough(t, op, 'op-a', 'carol');
    expect(setsSession(callback)).toBe(true);
    const user = await adapter().getUserByEmail!('carol@example.test');
    expect(user).toMatchObject({ email: 'carol@example.test', name: 'Carol', emailVerified: null });
    expect((await ownerOf('op-a', 'carol'))?.id).toBe(user!.id);
    expect(t.events.createUser.map((e) => e.user.id)).toEqual([user!.id]);
    expect(t.events.linkAccount.map((e) => [e.user.id, e.account.provider, e.account.providerAccountId])).toEqual([[user!.id, 'op-a', 'carol']]);
    expect(t.events.signIn).toHaveLength(1);
    expect(t.events.signIn[0]).toMatchObject({ isNewUser: true, user: { id: user!.id } });
    expect(await sessionEmail(t)).toBe('carol@example.test');
  });

  it('a returning user signs in as the same user, nothing created or linked', async () => {
    const t = app();
    await signInThrough(t, op, 'op-a', 'dave');
    const first = await ownerOf('op-a', 'dave');
    const later = t.newClient();
    const { callback } = await signInThrough(t, op, 'op-a', 'dave', { client: later });
    expect(setsSession(callback)).toBe(true);
    expect((await ownerOf('op-a', 'dave'))?.id).toBe(first!.id);
    expect(t.events.createUser).toHaveLength(1);
    expect(t.events.linkAccount).toHaveLength(1);
    expect(t.events.signIn.map((e) => [e.user.id, e.isNewUser])).toEqual([
      [first!.id, true],
      [first!.id, false],
    ]);
    expect(await sessionEmail(t, later)).toBe('dave@example.test');
  });

  it('a signed-in user adding a second provider gets it linked, whatever its e-mail', async () => {
    const t = app();
    await signInThrough(t, op, 'op-a', 'ivy');
    const ivy = await ownerOf('op-a', 'ivy');
    // Same browser, still signed in as ivy; the second identity has another subject and e-mail.
    const { callback } = await signInThrough(t, op, 'op-b', 'dave-work');
    expect(setsSession(callback)).toBe(true);
    expect((await ownerOf('op-b', 'dave-work'))?.id).toBe(ivy!.id);
    expect(await adapter().getUserByEmail!('dave@work.test')).toBeNull();
    expect(t.events.createUser).toHaveLength(1);
    expect(t.events.linkAccount.map((e) => [e.user.id, e.account.provider])).toEqual([
      [ivy!.id, 'op-a'],
      [ivy!.id, 'op-b'],
    ]);
  });

  it('an e-mail taken by another user is OAuthAccountNotLinked, unless the provider allows e-mail linking', async () => {
    const t = app();
    await signInThrough(t, op, 'op-a', 'erin');
    const erin = await ownerOf('op-a', 'erin');

    const stranger = t.newClient();
    const refused = await signInThrough(t, op, 'op-b', 'erin', { client: stranger });
    expectFailure(t, refused.callback, 'OAuthAccountNotLinked');
    expect(refused.callback.location!.pathname).toBe('/auth/signin');
    expect(await ownerOf('op-b', 'erin')).toBeNull();
    expect(await sessionEmail(t, stranger)).toBeUndefined();

    const trusted = await signInThrough(t, op, 'op-b-trusting', 'erin', { client: stranger });
    expect(setsSession(trusted.callback)).toBe(true);
    expect((await ownerOf('op-b-trusting', 'erin'))?.id).toBe(erin!.id);
    expect(t.events.createUser).toHaveLength(1);
    expect(t.events.linkAccount.at(-1)).toMatchObject({ user: { id: erin!.id }, account: { provider: 'op-b-trusting' } });
    expect(await sessionEmail(t, stranger)).toBe('erin@example.test');
  });

  it('an account owned by another user, while signed in, is OAuthAccountNotLinked', async () => {
    const t = app();
    await signInThrough(t, op, 'op-a', 'frank', { client: t.newClient() });
    await signInThrough(t, op, 'op-a', 'gina');
    const frank = await ownerOf('op-a', 'frank');
    const res = await signInThrough(t, op, 'op-a', 'frank');
    expectFailure(t, res.callback, 'OAuthAccountNotLinked');
    expect(lastError(t).cause?.actual).toBe(frank!.id);
    expect(await sessionEmail(t)).toBe('gina@example.test');
  });

  it('the signIn callback refusing is AccessDenied, and no user is created', async () => {
    const t = app();
    const { callback } = await signInThrough(t, op, 'op-a', 'hank');
    expectFailure(t, callback, 'AccessDenied');
    expect(await adapter().getUserByEmail!('hank@example.test')).toBeNull();
    expect(await ownerOf('op-a', 'hank')).toBeNull();
    expect(t.events.createUser).toEqual([]);
    expect(t.events.linkAccount).toEqual([]);
    expect(t.events.signIn).toEqual([]);
  });

  it('two new users without an e-mail address are two users (stored as NULL, not a shared empty string)', async () => {
    const t = app();
    const first = await signInThrough(t, op, 'op-a', 'anon-1');
    expect(setsSession(first.callback)).toBe(true);
    const second = await signInThrough(app(), op, 'op-a', 'anon-2');
    expect(setsSession(second.callback)).toBe(true);
    const [one, two] = await Promise.all([ownerOf('op-a', 'anon-1'), ownerOf('op-a', 'anon-2')]);
    expect(one?.id).toBeTruthy();
    expect(two?.id).toBeTruthy();
    expect(one?.id).not.toBe(two?.id);
  });
});
