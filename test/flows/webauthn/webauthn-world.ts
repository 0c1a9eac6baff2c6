// The world the WebAuthn flow tests run in: PostgresAdapter on one embedded PGlite, a switch that makes chosen
// adapter methods fail (a database outage, as the flow would meet it), users and passkeys seeded directly, and
// an authchart instance with a Passkey provider plus a credentials provider to sign users in.
import { randomUUID } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import { PostgresAdapter, type PostgresAdapterInstance } from '../../../src/adapters/postgres/index.js';
import type { Adapter } from '../../../src/core/adapter.js';
import type { AuthConfig } from '../../../src/core/options.js';
import type { AdapterUser } from '../../../src/core/types.js';
import { Credentials } from '../../../src/providers/credentials.js';
import { Passkey } from '../../../src/providers/webauthn.js';
import type { TestClient } from '../../support/client.js';
import { testAuth, type TestAuth } from '../../support/auth-app.js';
import type { SoftAuthenticator } from './webauthn-authenticator.js';

/** Each provider has its own flow cookie, `authchart.flow.<provider id>`. */
export const flowCookieOf = (providerId: string) => `authchart.flow.${providerId}`;
/** The Passkey provider's flow cookie (the provider these tests drive). */
export const FLOW_COOKIE = flowCookieOf('passkey');
export const SESSION_COOKIE = 'authchart.session-token';

export interface World {
  db: PGlite;
  adapter: PostgresAdapterInstance;
  /** Names of adapter methods that throw while they are in here. */
  faults: Set<string>;
  close(): Promise<void>;
}

export async function createWorld(): Promise<World> {
  const db = await PGlite.create();
  const adapter = PostgresAdapter(db);
  await adapter.migrate();
  return { db, adapter, faults: new Set(), close: () => db.close() };
}

/** The adapter, with every method failing while its name is in `faults` (inside transactions too). */
export function faultyAdapter(adapter: Adapter, faults: Set<string>): Adapter {
  const out: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(adapter)) {
    if (typeof fn !== 'function') continue;
    out[name] =
      name === 'withTransaction'
        ? (body: (tx: Adapter) => Promise<unknown>) => adapter.withTransaction!((tx) => body(faultyAdapter(tx, faults)))
        : (...args: unknown[]) => {
            if (faults.has(name)) throw new Error(`injected failure of ${name}`);
            return (fn as (...a: unknown[]) => unknown).apply(adapter, args);
          };
  }
  return out as Adapter;
}

let counter = 0;
/** An e-mail address no other test uses (the tests share one database). */
export function uniqueEmail(tag: string): string {
  return `${tag}-${++counter}-${randomUUID().slice(0, 8)}@example.test`;
}

export async function seedUser(world: World, email = uniqueEmail('user')): Promise<AdapterUser> {
  return world.adapter.createUser({ id: randomUUID(), email, name: email.split('@')[0], emailVerified: null });
}

/** Stores a passkey for `user` as a registration would have: its account and its authenticator. */
export async function seedPasskey(world: World, user: AdapterUser, soft: SoftAuthenticator, provider = 'passkey'): Promise<void> {
  const row = soft.row(user.id);
  await world.adapter.linkAccount({ provider, type: 'webauthn', providerAccountId: row.providerAccountId, userId: user.id });
  await world.adapter.createAuthenticator(row);
}

/** Knobs the tests turn right before the request they are about, so other requests are not affected. */
export interface Knobs {
  signIn: 'allow' | 'deny' | 'redirect' | 'throw';
  refuseJwt: boolean;
}

export const REDIRECT_ELSEWHERE = 'http://localhost:3000/elsewhere';

export interface WorldAuth extends TestAuth {
  knobs: Knobs;
}

/** An authchart instance on the world's (faulty) adapter: Passkey, and credentials that sign in any stored user. */
export function authOn(world: World, config: Partial<AuthConfig> = {}): WorldAuth {
  const knobs: Knobs = { signIn: 'allow', refuseJwt: false };
  const t = testAuth({
    adapter: faultyAdapter(world.adapter, world.faults),
    experimental: { enableWebAuthn: true },
    providers: [
      Passkey(),
      Credentials({
        credentials: { email: { label: 'Email' } },
        authorize: async (c) => {
          const user = await world.adapter.getUserByEmail(String(c.email));
          return user ? { id: user.id, email: user.email, name: user.name } : null;
        },
      }),
    ],
    ...config,
    callbacks: {
      signIn: () => {
        if (knobs.signIn === 'throw') throw new Error('the signIn callback broke');
        return knobs.signIn === 'allow' ? true : knobs.signIn === 'redirect' ? REDIRECT_ELSEWHERE : false;
      },
      jwt: ({ token }) => (knobs.refuseJwt ? null : token),
      // A passkey registered signed out makes a user without an address: the session names users by id.
      session: ({ session, user, token }) => ({ ...session, user: { ...session.user, id: String(user?.id ?? token?.sub) } }),
      ...config.callbacks,
    },
  });
  return Object.assign(t, { knobs });
}

/** Signs `client` in as `email` through the credentials provider. */
export async function signInAs(t: TestAuth, client: TestClient, email: string): Promise<void> {
  const csrfToken = await t.csrfToken(client);
  const res = await client.post('/auth/callback/credentials', { csrfToken, email });
  if (res.status !== 302 || res.location?.searchParams.has('error')) throw new Error(`signing in as ${email} failed: ${res.location?.href}`);
}

/** The signed-in user's id, as the session (see `authOn`) names it; null when signed out. */
export async function sessionUserId(client: TestClient): Promise<string | null> {
  const session = (await (await client.get('/auth/session')).json()) as { user?: { id?: string } } | null;
  return session?.user?.id ?? null;
}

/** The user a stored passkey signs in: the owner of its `passkey` account. */
export async function passkeyOwner(world: World, credentialIdBase64: string): Promise<AdapterUser> {
  const account = await world.adapter.getAccount(credentialIdBase64, 'passkey');
  const user = account ? await world.adapter.getUser(String(account.userId)) : null;
  if (!user) throw new Error(`no user owns passkey ${credentialIdBase64}`);
  return user;
}

/** GET the options of a ceremony; the query is given as it would be typed. */
export function getOptions(client: TestClient, query: Record<string, string | undefined>): ReturnType<TestClient['get']> {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) params.set(k, v);
  const qs = params.toString();
  return client.get(`/auth/webauthn-options/passkey${qs ? `?${qs}` : ''}`);
}

/** POST a credential to the callback, as the built-in script does (a form with `data` as JSON). */
export async function postCredential(
  t: TestAuth,
  client: TestClient,
  action: string,
  data: unknown,
  extra: Record<string, string> = {},
): ReturnType<TestClient['post']> {
  const csrfToken = await t.csrfToken(client);
  return client.post('/auth/callback/passkey', { action, data: typeof data === 'string' ? data : JSON.stringify(data), csrfToken, callbackUrl: '/after', ...extra });
}

/** One transition of a logged run; `machine` is set on the sign-in tail's (`signin`), absent on the flow's own. */
export type RunEntry = { from: string; event: string; to: string; guard?: string; at: number; machine?: string };

/** The traces of the webauthn flow runs logged so far, oldest first (each with the tail's entries, if it ran). */
export function webauthnRuns(t: TestAuth): { status: string; trace: RunEntry[] }[] {
  return t.logger.debugs.filter((d) => d.message.startsWith('flow webauthn ')).map((d) => d.metadata as { status: string; trace: RunEntry[] });
}

/** Where the webauthn machine itself ended in the last run (`authenticated`, `failed.invalidCheck`, an awaiting state). */
export function lastFlowState(t: TestAuth): string | undefined {
  return webauthnRuns(t).at(-1)?.trace.filter((e) => e.machine === undefined).at(-1)?.to;
}

/** Where the sign-in tail of the last webauthn run ended (`done`, `failed.accountNotLinked`, ...), or undefined if it did not run. */
export function lastTailState(t: TestAuth): string | undefined {
  return webauthnRuns(t).at(-1)?.trace.filter((e) => e.machine === 'signin').at(-1)?.to;
}
