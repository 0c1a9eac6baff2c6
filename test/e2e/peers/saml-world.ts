// One tenant with a SAML connection, for the SAML suites: a real DNS server for the TXT proof, a real PostgreSQL
// (PGlite), the test SAML IdP (saml-idp.ts), and TWO app instances on the same database and secret, optionally on a
// shared Redis flow store. The admin configures everything through the admin API of instance `a`: the organization
// Acme, a SAML connection with the IdP's entity id, SSO URL and certificate, the domain acme.test verified and routed.
import { PGlite } from '@electric-sql/pglite';
import { expect } from 'vitest';
import { PostgresAdapter, type PostgresAdapterInstance } from '../../../src/adapters/postgres/index.js';
import type { FlowStore } from '../../../src/core/flow-store/store.js';
import type { AuthConfig } from '../../../src/index.js';
import { Credentials } from '../../../src/providers/credentials.js';
import { testAuth, type TestAuth } from '../../support/auth-app.js';
import type { TestClient } from '../../support/client.js';
import { startSamlIdp, type ResponseOptions, type SamlIdpHarness } from './saml-idp.js';
import { startTxtServer, type TxtServer } from './sso-world.js';

export interface SamlWorld {
  a: TestAuth;
  b: TestAuth;
  db: PGlite;
  adapter: PostgresAdapterInstance;
  dns: TxtServer;
  idp: SamlIdpHarness;
  orgId: string;
  admin: TestClient;
  /** A POST of the admin's, on instance `a`, under `/auth`, with its CSRF token. */
  adminPost(path: string, body: Record<string, string>): ReturnType<TestClient['post']>;
  connectionId: string;
  /** The connection as the admin API created it (with spEntityId, acsUrl, spMetadataUrl). */
  created: Record<string, unknown>;
  stop(): Promise<void>;
}

const credentials = Credentials({ credentials: { email: {} }, authorize: (c) => ({ id: String(c.email), email: String(c.email) }) });

export async function startSamlWorld(options: { flowStore?: FlowStore; extra?: Partial<AuthConfig> } = {}): Promise<SamlWorld> {
  const [dns, db, idp] = await Promise.all([
    startTxtServer(),
    PGlite.create(),
    startSamlIdp({
      alice: { email: 'alice@acme.test', name: 'Alice Acme' },
      bob: { email: 'bob@acme.test', name: 'Bob Acme' },
      mallory: { email: 'mallory@elsewhere.test', name: 'Mallory' },
    }),
  ]);
  const adapter = PostgresAdapter(db);
  await adapter.migrate();
  const config = { adapter, providers: [credentials], organizations: {}, sso: { resolveTxt: dns.resolveTxt }, ...(options.flowStore ? { flowStore: options.flowStore } : {}), ...options.extra };
  const a = testAuth(config);
  const b = testAuth(config);
  const admin = a.newClient();
  const post = async (path: string, body: Record<string, string>) => admin.post(`/auth${path}`, { csrfToken: await a.csrfToken(admin), ...body });
  expect((await post('/callback/credentials', { email: 'admin@acme.test' })).status).toBe(302);
  const org = await post('/organizations', { name: 'Acme' });
  expect(org.status).toBe(201);
  const orgId = ((await org.json()) as { id: string }).id;
  const made = await post('/organizations/sso/connections', { kind: 'saml', name: 'Acme SAML', idpEntityId: idp.entityId, idpSsoUrl: idp.ssoUrl, idpCertificates: idp.keys.cert });
  expect(made.status, await made.clone().text()).toBe(201);
  const created = (await made.json()) as Record<string, unknown>;
  const connectionId = String(created.id);
  const claim = await post('/organizations/sso/domains', { domain: 'acme.test' });
  const { txtHost, txtValue } = (await claim.json()) as { txtHost: string; txtValue: string };
  dns.records.set(txtHost, [txtValue]);
  expect((await post('/organizations/sso/domains/verify', { domain: 'acme.test' })).status).toBe(200);
  expect((await post('/organizations/sso/domains/route', { domain: 'acme.test', connectionId })).status).toBe(200);
  return {
    a,
    b,
    db,
    adapter,
    dns,
    idp,
    orgId,
    admin,
    adminPost: post,
    connectionId,
    created,
    async stop() {
      await Promise.all([idp.stop(), dns.stop()]);
      if (!db.closed) await db.close();
    },
  };
}

/** "Continue with SSO" with `email` on instance `t`: the redirect to the IdP. */
export async function startSamlSignIn(w: SamlWorld, email: string, t: TestAuth = w.a, client = t.newClient()) {
  const start = await client.post('/auth/sso', { csrfToken: await t.csrfToken(client), email, callbackUrl: 'http://localhost:3000/dashboard' });
  expect(start.status, t.logger.errors.map((e) => e.message).join('; ')).toBe(302);
  expect(start.location!.href.startsWith(w.idp.ssoUrl)).toBe(true);
  return { client, start };
}

/** A whole SAML sign-in: continue with `email`, log in at the IdP as `account` (bent by `options`), post to the ACS. */
export async function samlSignIn(w: SamlWorld, email: string, account: string, options: ResponseOptions = {}, t: TestAuth = w.a) {
  const { client, start } = await startSamlSignIn(w, email, t);
  const nav = await w.idp.login(start.location!.href, account, options);
  const acs = await client.submit(nav);
  return { client, start, nav, acs };
}
