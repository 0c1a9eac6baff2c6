// Adding a passkey while signed in goes through `POST /auth/link/passkey` and the link stage: a real Passkey flow
// (a software authenticator answering real options, @simplewebauthn/server verifying), PostgresAdapter on embedded
// PGlite and on the DATABASE_URL server (a schema of its own), under both session strategies.
// Attacks: adding without a recent sign-in, cross-site (CSRF) starts, a ceremony finished by another user than the
// one it started for, a signed-out start, and a credential another user already owns.
import { PGlite } from '@electric-sql/pglite';
import { randomUUID } from 'node:crypto';
import type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/server';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { PostgresAdapter } from '../../src/adapters/postgres/index.js';
import type { Account, AdapterUser, User } from '../../src/core/types.js';
import { Credentials } from '../../src/providers/credentials.js';
import { Passkey } from '../../src/providers/webauthn.js';
import { ORIGIN, testAuth, type TestAuth } from '../support/auth-app.js';
import type { TestClient } from '../support/client.js';
import { serverSchema, type TestDatabase } from '../session/database-harness.js';
import { DATABASE } from '../e2e/tokens/harness.js';
import { SoftAuthenticator } from '../flows/webauthn/webauthn-authenticator.js';
import { postCredential, signInAs } from '../flows/webauthn/webauthn-world.js';

const ACCOUNT_PAGE = `${ORIGIN}/auth/account`;
const FLOW_COOKIE = 'authchart.flow.passkey';
let db: PGlite;
let server: TestDatabase & { schema: string };

beforeAll(async () => {
  [db, server] = await Promise.all([PGlite.create(), serverSchema(DATABASE)]);
  await PostgresAdapter(db).migrate();
}, 60_000);
afterAll(async () => {
  if (db && !db.closed) await db.close();
  await server?.close();
});
afterEach(() => {
  vi.useRealTimers();
});

type Store = 'pglite' | 'postgres';
const adapterOf = (store: Store) => (store === 'pglite' ? PostgresAdapter(db) : server.adapter);

interface Recorded {
  createUser: { user: User }[];
  linkAccount: { user: User; account: Account }[];
}

function app(store: Store, strategy: 'jwt' | 'database'): TestAuth & { events: Recorded } {
  const events: Recorded = { createUser: [], linkAccount: [] };
  const adapter = adapterOf(store);
  const t = testAuth({
    adapter,
    session: { strategy },
    experimental: { enableWebAuthn: true },
    providers: [
      Passkey(),
      Credentials({
        credentials: { email: { label: 'Email' } },
        authorize: async (c) => {
          const user = await adapter.getUserByEmail!(String(c.email));
          return user ? { id: user.id, email: user.email, name: user.name } : null;
        },
      }),
    ],
    callbacks: { session: ({ session, user, token }) => ({ ...session, user: { ...session.user, id: String(user?.id ?? token?.sub) } }) },
    events: {
      createUser: (m) => void events.createUser.push(m),
      // Passkeys only: the credentials sign-in records its own account.
      linkAccount: (m) => void (m.account.provider === 'passkey' && events.linkAccount.push(m)),
    },
  });
  return Object.assign(t, { events });
}

const setups = (['pglite', 'postgres'] as const).flatMap((store) => (['jwt', 'database'] as const).map((strategy) => [store, strategy] as const));

describe.each(setups)('adding a passkey through POST /link/passkey (%s, %s sessions)', (store, strategy) => {
  const adapter = () => adapterOf(store);
  const newUser = (tag: string) => adapter().createUser!({ id: randomUUID(), email: `${tag}-${randomUUID()}@passkey.test`, name: tag, emailVerified: null }) as Promise<AdapterUser>;
  const sessionUser = async (client: TestClient) => ((await (await client.get('/auth/session')).json()) as { user?: { id?: string } } | null)?.user?.id ?? null;
  const ownerOf = async (soft: SoftAuthenticator) => (await adapter().getUserByAccount!({ provider: 'passkey', providerAccountId: Buffer.from(soft.credentialId).toString('base64') }))?.id ?? null;

  /** POST /auth/link/passkey as the account page's script does: the registration options, or what the route answered. */
  async function startLink(t: TestAuth, client: TestClient = t.client, headers: Record<string, string> = { accept: 'application/json', 'x-auth-return-redirect': '1' }) {
    return client.post('/auth/link/passkey', { csrfToken: await t.csrfToken(client), callbackUrl: ACCOUNT_PAGE }, { headers });
  }

  it('registers the passkey for the signed-in user through the link stage: no new user, no new session, back to the account page', async () => {
    const t = app(store, strategy);
    const ann = await newUser('ann');
    await signInAs(t, t.client, ann.email!);
    const start = await startLink(t);
    expect(start.status, t.logger.errors.map((e) => e.message).join('; ')).toBe(200);
    const body = (await start.json()) as { action: string; options: PublicKeyCredentialCreationOptionsJSON };
    expect(body.action).toBe('register');
    expect(body.options.user.name).toBe(ann.email);

    const soft = new SoftAuthenticator(ORIGIN);
    const done = await postCredential(t, t.client, 'register', soft.register(body.options), { callbackUrl: ACCOUNT_PAGE });
    expect(done.status).toBe(302);
    expect(done.location!.href, t.logger.errors.map((e) => e.message).join('; ')).toBe(ACCOUNT_PAGE);
    expect(done.setCookie.some((l) => l.startsWith('authchart.session-token'))).toBe(false);
    expect(await ownerOf(soft)).toBe(ann.id);
    expect(t.events.createUser).toEqual([]);
    expect(t.events.linkAccount.map((e) => [e.user.id, e.account.provider, e.account.type])).toEqual([[ann.id, 'passkey', 'webauthn']]);
    // The link stage ran, not the sign-in tail.
    expect(t.logger.debugs.filter((d) => d.message.startsWith('flow webauthn ')).at(-1)?.metadata).toMatchObject({ status: 'redirected' });
    expect(await sessionUser(t.client)).toBe(ann.id);
    expect((await (await t.client.get('/auth/account')).text()).match(/<li data-passkey=/g)).toHaveLength(1);

    // Signed out, the new passkey signs in as ann.
    const other = t.newClient();
    const options = (await (await other.get('/auth/webauthn-options/passkey?action=authenticate')).json()) as { options: PublicKeyCredentialRequestOptionsJSON };
    const signedIn = await postCredential(t, other, 'authenticate', soft.authenticate(options.options));
    expect(signedIn.status).toBe(302);
    expect(await sessionUser(other)).toBe(ann.id);
  });

  it('attack: without a recent sign-in nothing starts (sign-in page, 403 for JSON, {url} for the passkey script)', async () => {
    const t = app(store, strategy);
    const ben = await newUser('ben');
    await signInAs(t, t.client, ben.email!);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 10 * 60_000 });
    const page = await startLink(t, t.client, {});
    expect(page.status).toBe(302);
    expect(page.location!.pathname).toBe('/auth/signin');
    expect(page.location!.searchParams.get('callbackUrl')).toBe(ACCOUNT_PAGE);
    const asJson = await startLink(t, t.client, { accept: 'application/json' });
    expect(asJson.status).toBe(403);
    expect(await asJson.json()).toEqual({ error: 'RecentSignInRequired' });
    const asScript = await startLink(t);
    expect(asScript.status).toBe(200);
    expect(new URL(((await asScript.json()) as { url: string }).url).pathname).toBe('/auth/signin');
    for (const res of [page, asJson, asScript]) expect(res.setCookie.some((l) => l.startsWith(FLOW_COOKIE))).toBe(false);
    expect(await adapter().listAuthenticatorsByUserId!(ben.id)).toEqual([]);
  });

  it('attack: a cross-site start (no or a forged CSRF token) sets no flow and registers nothing', async () => {
    const t = app(store, strategy);
    const cid = await newUser('cid');
    await signInAs(t, t.client, cid.email!);
    const missing = await t.client.post('/auth/link/passkey', { callbackUrl: ACCOUNT_PAGE });
    const forged = await t.client.post('/auth/link/passkey', { csrfToken: 'forged', callbackUrl: ACCOUNT_PAGE });
    for (const res of [missing, forged]) {
      expect(res.status).toBe(302);
      expect(res.location!.searchParams.get('error')).toBe('MissingCSRF');
      expect(res.setCookie.some((l) => l.startsWith(FLOW_COOKIE))).toBe(false);
    }
    expect(await adapter().listAuthenticatorsByUserId!(cid.id)).toEqual([]);
  });

  it('attack: a ceremony started for one user and finished by another lands on the account page, storing nothing', async () => {
    const t = app(store, strategy);
    const [dot, eve] = await Promise.all([newUser('dot'), newUser('eve')]);
    await signInAs(t, t.client, dot.email!);
    const body = (await (await startLink(t)).json()) as { options: PublicKeyCredentialCreationOptionsJSON };
    // The same browser is now eve's (the flow cookie, started for dot, stays).
    await signInAs(t, t.client, eve.email!);
    const soft = new SoftAuthenticator(ORIGIN);
    const done = await postCredential(t, t.client, 'register', soft.register(body.options), { callbackUrl: ACCOUNT_PAGE });
    expect(done.status).toBe(302);
    expect(done.location!.href).toBe(`${ACCOUNT_PAGE}?error=AccountNotLinked`);
    expect(await ownerOf(soft)).toBeNull();
    expect(t.events.linkAccount).toEqual([]);
    expect(await sessionUser(t.client)).toBe(eve.id);
  });

  it("attack: a credential another user already owns is refused on the account page and stays theirs", async () => {
    const t = app(store, strategy);
    const [fay, gus] = await Promise.all([newUser('fay'), newUser('gus')]);
    const soft = new SoftAuthenticator(ORIGIN);
    await signInAs(t, t.client, fay.email!);
    const first = (await (await startLink(t)).json()) as { options: PublicKeyCredentialCreationOptionsJSON };
    await postCredential(t, t.client, 'register', soft.register(first.options), { callbackUrl: ACCOUNT_PAGE });
    expect(await ownerOf(soft)).toBe(fay.id);

    const attacker = t.newClient();
    await signInAs(t, attacker, gus.email!);
    const second = (await (await startLink(t, attacker)).json()) as { options: PublicKeyCredentialCreationOptionsJSON };
    const done = await postCredential(t, attacker, 'register', soft.register(second.options), { callbackUrl: ACCOUNT_PAGE });
    expect(done.location!.href).toBe(`${ACCOUNT_PAGE}?error=OAuthAccountNotLinked`);
    expect(await ownerOf(soft)).toBe(fay.id);
    expect(await adapter().listAuthenticatorsByUserId!(gus.id)).toEqual([]);
    const page = await (await attacker.get(new URL(done.location!.href).pathname + new URL(done.location!.href).search)).text();
    expect(page).toContain('That account is already linked to another user.');
  });

  it('attack: signed out, POST /link/passkey starts no ceremony and makes no user', async () => {
    const t = app(store, strategy);
    const res = await startLink(t, t.client, {});
    expect(res.status).toBe(302);
    expect(res.location!.pathname).toBe('/auth/signin');
    expect(res.setCookie.some((l) => l.startsWith(FLOW_COOKIE))).toBe(false);
    expect(t.events.createUser).toEqual([]);
  });
});
