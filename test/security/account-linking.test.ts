// Linking and unlinking while signed in, and the attacks on it: a real OP, authchart's HTTP layer and the
// PostgreSQL adapter, on embedded PGlite and on the DATABASE_URL server (a schema of its own, dropped at the end),
// under both session strategies. Every test uses its own OP accounts.
// Attacks: linking an account another user owns, linking without a recent sign-in, unlinking the last way to sign
// in, and cross-site (CSRF) link and unlink requests.
import { PGlite } from '@electric-sql/pglite';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { PostgresAdapter } from '../../src/adapters/postgres/index.js';
import type { Account, User } from '../../src/core/types.js';
import { OIDC } from '../../src/providers/oauth.js';
import { testAuth, type TestAuth } from '../support/auth-app.js';
import { startOidcProvider, type AccountClaims, type OidcProviderHarness } from '../e2e/peers/oidc.js';
import { BASE, callbackOf, expectFailure, setsSession, signInThrough } from '../e2e/oauth/harness.js';
import type { TestClient } from '../support/client.js';
import { serverSchema, type TestDatabase } from '../session/database-harness.js';
import { DATABASE } from '../e2e/tokens/harness.js';

const strategies = ['jwt', 'database'] as const;
const people = ['ann', 'ben', 'cid', 'dot', 'eve', 'fay', 'gus', 'hal'];
const accounts: Record<string, AccountClaims> = {};
for (const s of strategies) {
  for (const p of people) {
    accounts[`${s}-${p}`] = { email: `${p}.${s}@example.test`, email_verified: true, name: p };
    accounts[`${s}-${p}-work`] = { email: `${p}.${s}@work.test`, email_verified: true, name: `${p} at work` };
  }
}
const secret = 'account-linking-client-secret-0123456789';
let op: OidcProviderHarness;
let db: PGlite;
let server: TestDatabase & { schema: string };

beforeAll(async () => {
  const client = (id: string) => ({
    client_id: id,
    client_secret: secret,
    redirect_uris: [callbackOf(id)],
    response_types: ['code'],
    grant_types: ['authorization_code'],
    token_endpoint_auth_method: 'client_secret_basic',
  });
  [op, db, server] = await Promise.all([startOidcProvider({ accounts, clients: [client('home'), client('work')] }), PGlite.create(), serverSchema(DATABASE)]);
  await PostgresAdapter(db).migrate();
}, 60_000);
afterAll(async () => {
  await op?.stop();
  if (db && !db.closed) await db.close();
  await server?.close();
});
afterEach(() => {
  vi.useRealTimers();
});

interface Recorded {
  createUser: { user: User }[];
  linkAccount: { user: User; account: Account }[];
  unlinkAccount: { user: User; account: Account }[];
}

type Store = 'pglite' | 'postgres';
const adapterOf = (store: Store) => (store === 'pglite' ? PostgresAdapter(db) : server.adapter);

function app(store: Store, strategy: 'jwt' | 'database'): TestAuth & { events: Recorded } {
  const events: Recorded = { createUser: [], linkAccount: [], unlinkAccount: [] };
  const t = testAuth({
    adapter: adapterOf(store),
    session: { strategy },
    providers: [
      OIDC({ id: 'home', name: 'Home', issuer: op.issuer, clientId: 'home', clientSecret: secret }),
      OIDC({ id: 'work', name: 'Work', issuer: op.issuer, clientId: 'work', clientSecret: secret }),
    ],
    events: {
      createUser: (m) => void events.createUser.push(m),
      linkAccount: (m) => void events.linkAccount.push(m),
      unlinkAccount: (m) => void events.unlinkAccount.push(m),
    },
  });
  return Object.assign(t, { events });
}

const ACCOUNT_PAGE = `${BASE}/auth/account`;

async function sessionEmail(t: TestAuth, client: TestClient = t.client): Promise<string | undefined> {
  const body = (await (await client.get('/auth/session')).json()) as { user?: { email?: string } } | null;
  return body?.user?.email;
}

/** POST /auth/link/:provider as the account page's button does, then the OP login and the callback. */
async function linkThrough(t: TestAuth, provider: string, account: string, client: TestClient = t.client) {
  const start = await client.post(`/auth/link/${provider}`, { csrfToken: await t.csrfToken(client), callbackUrl: ACCOUNT_PAGE });
  expect(start.status, t.logger.errors.map((e) => e.message).join('; ')).toBe(302);
  expect(start.location!.origin).toBe(new URL(op.issuer).origin);
  const nav = await op.login(start.location!.href, account);
  return client.submit(nav);
}

const setups = (['pglite', 'postgres'] as const).flatMap((store) => strategies.map((strategy) => [store, strategy] as const));

describe.each(setups)('link and unlink while signed in (%s, %s sessions)', (store, strategy) => {
  const id = (p: string) => `${strategy}-${p}`;
  const adapter = () => adapterOf(store);
  const ownerOf = (provider: string, providerAccountId: string) => adapter().getUserByAccount!({ provider, providerAccountId });

  it('links a second provider to the signed-in user, keeps the session, creates nobody, then unlinks it', async () => {
    const t = app(store, strategy);
    await signInThrough(t, op, 'home', id('ann'));
    const ann = await ownerOf('home', id('ann'));
    t.events.createUser.length = 0;
    t.events.linkAccount.length = 0;

    const callback = await linkThrough(t, 'work', id('ann-work'));
    expect(callback.status).toBe(302);
    expect(callback.location!.href).toBe(ACCOUNT_PAGE);
    expect(setsSession(callback)).toBe(false);
    expect((await ownerOf('work', id('ann-work')))?.id).toBe(ann!.id);
    expect(await adapter().getUserByEmail!(`ann.${strategy}@work.test`)).toBeNull();
    expect(t.events.createUser).toEqual([]);
    expect(t.events.linkAccount.map((e) => [e.user.id, e.account.provider, e.account.providerAccountId])).toEqual([[ann!.id, 'work', id('ann-work')]]);
    expect(await sessionEmail(t)).toBe(`ann.${strategy}@example.test`);

    // The account page lists both, each with its unlink button.
    const page = await (await t.client.get('/auth/account')).text();
    expect(page).toContain(`data-account-action="unlink-home"`);
    expect(page).toContain(`data-account-action="unlink-work"`);

    const unlinked = await t.client.post(`/auth/unlink/work/${encodeURIComponent(id('ann-work'))}`, { csrfToken: await t.csrfToken() });
    expect(unlinked.status).toBe(302);
    expect(unlinked.location!.href).toBe(ACCOUNT_PAGE);
    expect(await ownerOf('work', id('ann-work'))).toBeNull();
    expect(t.events.unlinkAccount.map((e) => [e.user.id, e.account.provider])).toEqual([[ann!.id, 'work']]);
    // Signing in with the unlinked account now makes a user of its own: it is no longer ann's.
    const other = t.newClient();
    await signInThrough(t, op, 'work', id('ann-work'), { client: other });
    expect((await ownerOf('work', id('ann-work')))?.id).not.toBe(ann!.id);
  });

  it('attack: linking an account another user owns is OAuthAccountNotLinked and moves nothing', async () => {
    const t = app(store, strategy);
    const victim = t.newClient();
    await signInThrough(t, op, 'work', id('ben-work'), { client: victim });
    const owner = await ownerOf('work', id('ben-work'));
    await signInThrough(t, op, 'home', id('cid'));
    const cid = await ownerOf('home', id('cid'));

    const callback = await linkThrough(t, 'work', id('ben-work'));
    expectFailure(t, callback, 'OAuthAccountNotLinked');
    // A failed link lands on the account page (not the sign-in page), which says why.
    expect(callback.location!.href).toBe(`${ACCOUNT_PAGE}?error=OAuthAccountNotLinked`);
    const page = await (await t.client.get('/auth/account?error=OAuthAccountNotLinked')).text();
    expect(page).toContain('That account is already linked to another user.');
    expect((await ownerOf('work', id('ben-work')))?.id).toBe(owner!.id);
    expect(owner!.id).not.toBe(cid!.id);
    // The linking user stays signed in as themselves.
    expect(await sessionEmail(t)).toBe(`cid.${strategy}@example.test`);
  });

  it('attack: linking without a recent sign-in starts nothing (sign-in page, or 403 for JSON)', async () => {
    const t = app(store, strategy);
    await signInThrough(t, op, 'home', id('dot'));
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 10 * 60_000 });
    const csrfToken = await t.csrfToken();
    const res = await t.client.post('/auth/link/work', { csrfToken, callbackUrl: ACCOUNT_PAGE });
    expect(res.status).toBe(302);
    expect(res.location!.pathname).toBe('/auth/signin');
    expect(res.setCookie.some((l) => l.startsWith('authchart.flow.'))).toBe(false);
    const asJson = await t.client.post('/auth/link/work', { csrfToken }, { headers: { accept: 'application/json' } });
    expect(asJson.status).toBe(403);
    expect(await asJson.json()).toEqual({ error: 'RecentSignInRequired' });
    // Unlink asks the same.
    const unlink = await t.client.post(`/auth/unlink/home/${encodeURIComponent(id('dot'))}`, { csrfToken }, { headers: { accept: 'application/json' } });
    expect(unlink.status).toBe(403);
    expect(await ownerOf('home', id('dot'))).not.toBeNull();
  });

  it('attack: a signed-out link never creates a user', async () => {
    const t = app(store, strategy);
    const res = await t.client.post('/auth/link/work', { csrfToken: await t.csrfToken(), callbackUrl: ACCOUNT_PAGE });
    expect(res.status).toBe(302);
    expect(res.location!.pathname).toBe('/auth/signin');
    expect(t.events.createUser).toEqual([]);
  });

  it('attack: unlinking the last way to sign in is refused', async () => {
    const t = app(store, strategy);
    await signInThrough(t, op, 'home', id('eve'));
    const res = await t.client.post(`/auth/unlink/home/${encodeURIComponent(id('eve'))}`, { csrfToken: await t.csrfToken() }, { headers: { accept: 'application/json' } });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ error: 'AccessDenied' });
    expect(await ownerOf('home', id('eve'))).not.toBeNull();
    expect(t.events.unlinkAccount).toEqual([]);
    // Another user's account is not this user's to unlink either.
    const other = t.newClient();
    await signInThrough(t, op, 'home', id('fay'), { client: other });
    const foreign = await t.client.post(`/auth/unlink/home/${encodeURIComponent(id('fay'))}`, { csrfToken: await t.csrfToken() }, { headers: { accept: 'application/json' } });
    expect(foreign.status).toBe(403);
    expect(await ownerOf('home', id('fay'))).not.toBeNull();
  });

  it('attack: cross-site link and unlink (no CSRF token) do nothing', async () => {
    const t = app(store, strategy);
    await signInThrough(t, op, 'home', id('gus'));
    await linkThrough(t, 'work', id('gus-work'));
    expect(await ownerOf('work', id('gus-work'))).not.toBeNull();

    const link = await t.client.post('/auth/link/work', { callbackUrl: ACCOUNT_PAGE });
    expect(link.status).toBe(302);
    expect(link.location!.searchParams.get('error')).toBe('MissingCSRF');
    expect(link.setCookie.some((l) => l.startsWith('authchart.flow.'))).toBe(false);
    const forged = await t.client.post('/auth/link/work', { csrfToken: 'forged', callbackUrl: ACCOUNT_PAGE });
    expect(forged.location!.searchParams.get('error')).toBe('MissingCSRF');

    const unlink = await t.client.post(`/auth/unlink/work/${encodeURIComponent(id('gus-work'))}`, {});
    expect(unlink.status).toBe(302);
    expect(unlink.location!.searchParams.get('error')).toBe('MissingCSRF');
    expect(await ownerOf('work', id('gus-work'))).not.toBeNull();
    expect(t.events.unlinkAccount).toEqual([]);
  });
});
