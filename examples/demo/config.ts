// The demo's authchart configuration and the local services behind it (the demo IdP, and later the
// mail catcher and database). Real providers join when their AUTH_{PROVIDER}_ID/_SECRET are set.
import { randomBytes } from 'node:crypto';
import type { EventHandler } from 'h3';
import type { AuthConfig } from '../../src/index.js';
import { Credentials, OIDC } from '../../src/providers/index.js';
import { catalogue } from '../../src/providers/catalogue/index.js';
import { providerEnv } from '../../src/core/env.js';
import { startDevIdp } from './dev-idp.js';

export const DEMO_EMAIL = 'demo@authchart.dev';
export const DEMO_PASSWORD = 'demo-password';

export interface DemoServices {
  /** Extra demo pages (e.g. the mailbox). */
  routes: { path: string; handler: EventHandler }[];
  /** Lines for the home page about what is running. */
  notes: string[];
  close(): Promise<void>;
}

export async function createDemoConfig(port: number): Promise<{ config: AuthConfig; services: DemoServices; describe: () => string[] }> {
  const origin = `http://localhost:${port}`;
  const idpPort = Number(process.env.DEMO_IDP_PORT ?? port + 1);
  const idp = await startDevIdp(idpPort, `${origin}/auth/callback/demo-idp`);
  const closers: (() => Promise<void>)[] = [() => idp.close()];

  const realProviders = Object.entries(catalogue)
    .filter(([id]) => providerEnv(process.env, id, 'ID') && providerEnv(process.env, id, 'SECRET'))
    .map(([, factory]) => factory());

  const secret = process.env.AUTH_SECRET ?? randomBytes(32).toString('base64url');
  const config: AuthConfig = {
    secret,
    trustHost: true,
    providers: [
      OIDC({ id: 'demo-idp', name: 'Demo IdP', issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret, checks: ['pkce', 'state', 'nonce'], style: { brandColor: '#4f46e5' } }),
      Credentials({
        name: 'Demo account',
        credentials: { email: { label: 'Email', type: 'email', placeholder: DEMO_EMAIL }, password: { label: 'Password', type: 'password' } },
        authorize: async (c) => (c.email === DEMO_EMAIL && c.password === DEMO_PASSWORD ? { id: 'demo', email: DEMO_EMAIL, name: 'Demo User' } : null),
      }),
      ...realProviders,
    ],
    callbacks: {
      authorized: ({ auth }) => Boolean(auth?.user),
    },
  };
  const services: DemoServices = {
    routes: [],
    notes: [`Demo IdP (OpenID Provider) at ${idp.issuer}: sign in as "alice" or "bob", any password.`, `Demo account: ${DEMO_EMAIL} / ${DEMO_PASSWORD}.`],
    close: async () => {
      for (const close of closers) await close().catch(() => {});
    },
  };
  const describe = () => [...services.notes, ...(process.env.AUTH_SECRET ? [] : ['AUTH_SECRET is not set: a random secret is used, so sessions end on restart.'])];
  return { config, services, describe };
}
