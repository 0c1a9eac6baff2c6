// The demo's authchart configuration and the local services behind it (the demo IdP, the database,
// and the mail catcher). Real providers join when their AUTH_{PROVIDER}_ID/_SECRET are set.
import { randomBytes } from 'node:crypto';
import type { EventHandler } from 'h3';
import type { AuthConfig } from '../../src/index.js';
import { OIDC, Passkey, Password } from '../../src/providers/index.js';
import { hashNewPassword } from '../../src/providers/password/index.js';
import { catalogue } from '../../src/providers/catalogue/index.js';
import { providerEnv } from '../../src/core/env.js';
import { demoIdpClientSecret, sharedDevIdp, startDevIdp } from './dev-idp.js';
import { demoThrottle } from './throttle.js';
import { openDemoDatabase, type DemoDatabase } from './database.js';
import { addEmailSignIn } from './mailbox.js';

export const DEMO_EMAIL = 'demo@authchart.dev';
export const DEMO_PASSWORD = 'demo-password';

export interface DemoServices {
  /** Extra demo pages (e.g. the mailbox). */
  routes: { path: string; handler: EventHandler }[];
  /** Lines for the home page about what is running. */
  notes: string[];
  /** Users, accounts and sessions (PGlite under .data/, or DATABASE_URL). */
  database: DemoDatabase;
  /** How each user last signed in (user id -> provider id), for the home page; kept in memory. */
  lastSignIn: Map<string, string>;
  close(): Promise<void>;
}

/**
 * The demo's `trustHost`: outside production it believes the Host header (any port, a LAN address); in production it
 * leaves the host to AUTH_URL or an AUTH_TRUST_HOST allow-list, so a forged Host cannot name a sign-in mail's link.
 *
 * @example
 * demoTrustHost({ NODE_ENV: 'production' }) // undefined: AUTH_URL or AUTH_TRUST_HOST decide
 */
export function demoTrustHost(env: NodeJS.ProcessEnv = process.env): true | undefined {
  return env.NODE_ENV === 'production' ? undefined : true;
}

/**
 * The demo account as a password account of the demo database: made once, its password set when it has none.
 * Several instances may start on one database at once (scripts/instances.ts): the one that loses the race to make
 * the user reads the winner's.
 */
export async function seedDemoAccount(database: DemoDatabase): Promise<void> {
  const { adapter } = database;
  const user = (await adapter.getUserByEmail(DEMO_EMAIL)) ?? (await createDemoUser(database));
  if (!(await adapter.getPasswordHash(user.id))) await adapter.setPasswordHash(user.id, await hashNewPassword(DEMO_PASSWORD));
}

async function createDemoUser({ adapter }: DemoDatabase) {
  try {
    return await adapter.createUser({ id: 'demo', email: DEMO_EMAIL, name: 'Demo User', emailVerified: new Date() });
  } catch (err) {
    const made = await adapter.getUserByEmail(DEMO_EMAIL);
    if (made) return made;
    throw err;
  }
}

export async function createDemoConfig(port: number, env: NodeJS.ProcessEnv = process.env): Promise<{ config: AuthConfig; services: DemoServices; describe: () => string[] }> {
  const origin = `http://localhost:${port}`;
  const idpPort = Number(env.DEMO_IDP_PORT ?? port + 1);
  // PGlite's cold start (~3 s) overlaps the IdP's.
  // DEMO_IDP_URL: an IdP started by another process (`npm run instances` starts one for every instance).
  const idpReady = env.DEMO_IDP_URL ? sharedDevIdp(env.DEMO_IDP_URL, env) : startDevIdp(idpPort, [`${origin}/auth/callback/demo-idp`], demoIdpClientSecret(env));
  const [idp, database] = await Promise.all([idpReady, openDemoDatabase(env)]);
  const closers: (() => Promise<void>)[] = [() => idp.close(), () => database.close()];

  const realProviders = Object.entries(catalogue)
    .filter(([id]) => providerEnv(process.env, id, 'ID') && providerEnv(process.env, id, 'SECRET'))
    .map(([, factory]) => factory());

  const lastSignIn = new Map<string, string>();
  const secret = process.env.AUTH_SECRET ?? randomBytes(32).toString('base64url');
  const config: AuthConfig = {
    secret,
    trustHost: demoTrustHost(),
    // AUTH_DEBUG=1 logs every flow and opens the flow inspector at /auth/_inspect (never in production), where each
    // browser sees the flows it ran; AUTH_DEBUG=shared shows every browser every flow (your own machine only).
    debug: process.env.AUTH_DEBUG === 'shared' ? { inspector: 'shared' } : process.env.AUTH_DEBUG === '1',
    adapter: database.adapter,
    // Second factors: once a user enrols an authenticator app (/auth/factors), every sign-in kind stops at the stage.
    secondFactor: { issuer: 'authchart demo' },
    providers: [
      OIDC({ id: 'demo-idp', name: 'Demo IdP', issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret, checks: ['pkce', 'state', 'nonce'], style: { brandColor: '#4f46e5' } }),
      // Password accounts kept by authchart (argon2id hashes in the demo database): the demo account is one (seeded
      // below), and anyone can sign up, verify by the mailed link or code, and recover a forgotten password. Its id
      // stays `credentials`, so `signIn('credentials', …)` and /auth/callback/credentials work as before.
      Password({ id: 'credentials', name: 'Demo account' }),
      ...realProviders,
    ],
    events: {
      signIn: ({ user, account }) => {
        if (user.id !== undefined && user.id !== null) lastSignIn.set(String(user.id), account?.provider ?? 'credentials');
      },
    },
    callbacks: {
      authorized: ({ auth }) => Boolean(auth?.user),
      // The home page lists the user's accounts and sessions, so it needs the user's id.
      session: ({ session, user }) => ({ ...session, user: { ...session.user, id: user?.id } }),
    },
  };
  const services: DemoServices = {
    routes: [],
    database,
    lastSignIn,
    notes: [`Users, accounts and sessions: ${database.where}.`, `Demo IdP (OpenID Provider) at ${idp.issuer}: sign in as "alice" or "bob", any password.`, `Demo account: ${DEMO_EMAIL} / ${DEMO_PASSWORD}.`,
      `Two-step verification: ${origin}/auth/factors (an authenticator app, backup codes); ${origin}/account/security asks for a factor check when the last one is over 5 minutes old.`,
      config.debug
        ? `Flow inspector: ${origin}/auth/_inspect (AUTH_DEBUG=${process.env.AUTH_DEBUG}: ${process.env.AUTH_DEBUG === 'shared' ? "every browser's flows" : "each browser's own flows"}).`
        : 'AUTH_DEBUG=1 opens the flow inspector at /auth/_inspect (AUTH_DEBUG=shared: every browser sees every flow).'],
    close: async () => {
      for (const close of closers) await close().catch(() => {});
    },
  };
  // The e-mail provider and its mail catcher (/dev/mailbox), or AUTH_EMAIL_SERVER: password sign-up and recovery
  // mails go through it too.
  closers.push(await addEmailSignIn(config, services));
  await seedDemoAccount(database);
  services.notes.push(`Password accounts: sign up at ${origin}/auth/signup/credentials or recover one with "Forgot your password?" (mails appear in the mailbox).`);
  // Passkeys (WebAuthn, experimental) keep their authenticators in the database, so they need the adapter.
  if (config.adapter) {
    config.experimental = { ...config.experimental, enableWebAuthn: true };
    config.providers.push(Passkey());
    services.notes.push(`Passkeys: "Sign in with a passkey" on the sign-in page (open ${origin}, not 127.0.0.1: WebAuthn needs a domain).`);
  }
  const throttle = await demoThrottle(config, env);
  if (throttle) {
    closers.push(throttle.close);
    services.notes.push(throttle.note);
  }
  if (config.trustHost === undefined && !process.env.AUTH_URL && !process.env.AUTH_TRUST_HOST) {
    services.notes.push('NODE_ENV=production: no host is trusted; set AUTH_URL (or AUTH_TRUST_HOST=your.host) or every request is refused.');
  }
  const describe = () => [...services.notes, ...(process.env.AUTH_SECRET ? [] : ['AUTH_SECRET is not set: a random secret is used, so sign-ins in progress end on restart (stored sessions survive).'])];
  return { config, services, describe };
}
