// Two tenants with their own identity providers, for the enterprise SSO suites: a real DNS server (dns2) on 127.0.0.1
// that serves the TXT records a test publishes, a real PostgreSQL (PGlite), one app, two organizations (Acme and
// Globex) whose admins configured an OIDC connection each through the admin API, verified their domain through DNS
// and routed it to the connection, and two oidc-provider instances as the tenants' IdPs. Each IdP also knows a user
// of the OTHER tenant's domain, so a test can make one tenant's IdP assert an address in the other's domain.
import { Resolver } from 'node:dns/promises';
import { PGlite } from '@electric-sql/pglite';
import dns2 from 'dns2';
import { expect } from 'vitest';
import { PostgresAdapter, type PostgresAdapterInstance } from '../../../src/adapters/postgres/index.js';
import type { AuthConfig } from '../../../src/index.js';
import { Credentials } from '../../../src/providers/credentials.js';
import { testAuth, type TestAuth } from '../../support/auth-app.js';
import type { TestClient } from '../../support/client.js';
import { freePort } from './net.js';
import { startOidcProvider, type AccountClaims, type OidcProviderHarness } from './oidc.js';

/** A DNS server answering TXT questions from `records` (host -> values); any other name gets no answer. */
export interface TxtServer {
  records: Map<string, string[]>;
  resolveTxt(host: string): Promise<string[][]>;
  stop(): Promise<void>;
}

export async function startTxtServer(): Promise<TxtServer> {
  const records = new Map<string, string[]>();
  const { Packet } = dns2;
  const server = dns2.createServer({
    udp: true,
    handle: (request, send) => {
      const response = Packet.createResponseFromRequest(request);
      for (const q of request.questions) {
        for (const data of records.get(q.name.toLowerCase()) ?? []) {
          // dns2's types ask for a Resource instance; its encoder takes the plain record, as its own examples write it.
          response.answers.push({ name: q.name, type: Packet.TYPE.TXT, class: Packet.CLASS.IN, ttl: 60, data } as unknown as (typeof response.answers)[number]);
        }
      }
      send(response);
    },
  });
  const port = await freePort();
  await server.listen({ udp: { port, address: '127.0.0.1' } });
  const resolver = new Resolver({ timeout: 1000, tries: 1 });
  resolver.setServers([`127.0.0.1:${port}`]);
  return { records, resolveTxt: (host) => resolver.resolveTxt(host), stop: () => server.close() };
}

/** One tenant: its organization, admin browser, connection and IdP. */
export interface Tenant {
  orgId: string;
  admin: TestClient;
  adminEmail: string;
  domain: string;
  connectionId: string;
  op: OidcProviderHarness;
}

export interface SsoWorld {
  t: TestAuth;
  db: PGlite;
  adapter: PostgresAdapterInstance;
  dns: TxtServer;
  acme: Tenant;
  globex: Tenant;
  /** POST under {basePath}/organizations/sso with the client's CSRF token. */
  admin(client: TestClient, path: string, body?: Record<string, string>): Promise<Response & { location: URL | null }>;
  stop(): Promise<void>;
}

export const CLIENT_SECRET = 'sso-tenant-client-secret-0123456789abcdef';

const credentials = Credentials({ credentials: { email: {} }, authorize: (c) => ({ id: String(c.email), email: String(c.email) }) });

async function signInAdmin(t: TestAuth, client: TestClient, email: string): Promise<void> {
  expect((await client.post('/auth/callback/credentials', { csrfToken: await t.csrfToken(client), email })).status).toBe(302);
}

/** Builds the two tenants (Acme's new members are members, Globex's admins), the app configured with `extra` too. */
export async function startSsoWorld(extra: Partial<AuthConfig> = {}): Promise<SsoWorld> {
  const dns = await startTxtServer();
  const db = await PGlite.create();
  const adapter = PostgresAdapter(db);
  await adapter.migrate();
  const t = testAuth({ adapter, providers: [credentials], organizations: {}, activity: {}, sso: { resolveTxt: dns.resolveTxt }, ...extra });
  const admin: SsoWorld['admin'] = async (client, path, body = {}) => client.post(`/auth/organizations/sso${path}`, { csrfToken: await t.csrfToken(client), ...body });

  const tenant = async (name: string, domain: string, defaultRole: string, accounts: Record<string, AccountClaims>): Promise<Tenant> => {
    const client = t.newClient();
    const adminEmail = `admin@${domain}`;
    await signInAdmin(t, client, adminEmail);
    const created = await client.post('/auth/organizations', { csrfToken: await t.csrfToken(client), name });
    expect(created.status).toBe(201);
    const orgId = ((await created.json()) as { id: string }).id;
    // The IdP's issuer must be known before the connection, and the connection's id before the IdP (its redirect URI).
    const port = await freePort();
    const issuer = `http://127.0.0.1:${port}`;
    const made = await admin(client, '/connections', { kind: 'oidc', name: `${name} SSO`, issuer, clientId: `${domain}-app`, clientSecret: CLIENT_SECRET, scopes: 'openid email profile', defaultRole });
    expect(made.status, await made.clone().text()).toBe(201);
    const connection = (await made.json()) as { id: string; redirectUri: string };
    const op = await startOidcProvider({
      port,
      accounts,
      clients: [{ client_id: `${domain}-app`, client_secret: CLIENT_SECRET, redirect_uris: [connection.redirectUri], response_types: ['code'], grant_types: ['authorization_code'], token_endpoint_auth_method: 'client_secret_basic' }],
    });
    const claim = await admin(client, '/domains', { domain });
    expect(claim.status).toBe(201);
    const { txtHost, txtValue } = (await claim.json()) as { txtHost: string; txtValue: string };
    dns.records.set(txtHost, [txtValue]);
    expect((await admin(client, '/domains/verify', { domain })).status).toBe(200);
    expect((await admin(client, '/domains/route', { domain, connectionId: connection.id })).status).toBe(200);
    return { orgId, admin: client, adminEmail, domain, connectionId: connection.id, op };
  };

  const acme = await tenant('Acme', 'acme.test', 'member', {
    alice: { email: 'alice@acme.test', email_verified: true, name: 'Alice Acme' },
    // Acme's IdP asserting an address of Globex's domain: never a Globex sign-in.
    mallory: { email: 'mallory@globex.test', email_verified: true, name: 'Mallory' },
    // An address of a domain Acme claimed but never verified.
    carol: { email: 'carol@pending.test', email_verified: true, name: 'Carol' },
    // An address of no claimed domain at all.
    dave: { email: 'dave@elsewhere.test', email_verified: true, name: 'Dave' },
    unverified: { email: 'ursula@acme.test', email_verified: false, name: 'Ursula' },
  });
  const globex = await tenant('Globex', 'globex.test', 'admin', {
    bob: { email: 'bob@globex.test', email_verified: true, name: 'Bob Globex' },
    eve: { email: 'eve@acme.test', email_verified: true, name: 'Eve' },
  });
  return {
    t,
    db,
    adapter,
    dns,
    acme,
    globex,
    admin,
    async stop() {
      await Promise.all([acme.op.stop(), globex.op.stop(), dns.stop()]);
      if (!db.closed) await db.close();
    },
  };
}

/** "Continue with SSO" with `email` in a fresh browser: the answer to POST {basePath}/sso. */
export async function continueWithSso(w: SsoWorld, email: string, client = w.t.newClient()) {
  const res = await client.post('/auth/sso', { csrfToken: await w.t.csrfToken(client), email, callbackUrl: 'http://localhost:3000/dashboard' });
  return { client, res };
}

/** A whole SSO sign-in: continue with `email`, log in at `op` as `account`, come back. */
export async function ssoSignIn(w: SsoWorld, email: string, op: OidcProviderHarness, account: string, client = w.t.newClient()) {
  const { res: start } = await continueWithSso(w, email, client);
  expect(start.status, w.t.logger.errors.map((e) => e.message).join('; ')).toBe(302);
  expect(start.location!.origin).toBe(op.issuer);
  const nav = await op.login(start.location!.href, account);
  const callback = await client.submit(nav);
  return { client, start, callback };
}

/** The session's user and active organization, as the app reports them. */
export async function whoAndWhere(w: SsoWorld, client: TestClient) {
  const session = (await (await client.get('/auth/session')).json()) as { user?: { email?: string } } | null;
  const orgs = (await (await client.get('/auth/organizations')).json()) as { active: { id: string; role: string } | null };
  return { email: session?.user?.email, active: orgs.active };
}
