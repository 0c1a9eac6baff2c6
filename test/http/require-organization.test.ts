// requireOrganization in each form (issue 47): an h3 event (HTTPError 401/403), a web Request (typed errors
// SessionRequired, OrganizationForbidden), a Node request as Express passes it (typed errors, cookies on `res`). The
// membership is read on every call. Also: a configuration with organizations on an adapter without the methods is
// refused at start, naming them.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { H3, HTTPError } from 'h3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthError, MissingAdapterMethods } from '../../src/core/errors.js';
import type { AuthConfig } from '../../src/core/options.js';
import { resolveConfig } from '../../src/core/config.js';
import { createAuthHandler } from '../../src/http/integrations/h3.js';
import { ServerAuth } from '../../src/http/integrations/node.js';
import { requireOrganization } from '../../src/http/integrations/organization-helpers.js';
import { Credentials } from '../../src/providers/credentials.js';
import { recordingLogger, TEST_SECRET } from '../support/auth-app.js';
import { createClient, type TestClient } from '../support/client.js';
import { useMigratedPGlite } from '../support/pglite.js';

const pglite = useMigratedPGlite();
const provider = Credentials({ credentials: { email: {} }, authorize: (c) => ({ id: String(c.email), email: String(c.email) }) });
let config: AuthConfig;
let node: Server;
let nodeUrl: string;

const statusOf = (err: unknown) => (err instanceof AuthError ? ({ SessionRequired: 401, OrganizationForbidden: 403 } as Record<string, number>)[err.type] ?? 500 : 500);

function h3App(): H3 {
  const app = new H3();
  app.all('/auth/**', createAuthHandler(config));
  app.get('/h3', async (event) => (await requireOrganization(event, config, { permission: 'invoice:approve' })).organization);
  // The fetch form: a web Request in, typed errors out.
  app.get('/web', async (event) => {
    try {
      return (await requireOrganization(event.req, config, { permission: 'invoice:approve' })).organization;
    } catch (err) {
      return new Response(JSON.stringify({ error: (err as AuthError).type }), { status: statusOf(err) });
    }
  });
  return app;
}

beforeAll(async () => {
  config = { secret: TEST_SECRET, trustHost: true, logger: recordingLogger(), adapter: pglite.adapter, providers: [provider], organizations: { roles: { billing: ['invoice:approve'] } } };
  const auth = ServerAuth(config);
  node = createServer((req, res) => {
    void (async () => {
      if (req.url?.startsWith('/auth')) return auth(req, res, () => {});
      try {
        const { organization } = await requireOrganization(req, config, { permission: 'invoice:approve' }, res);
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(organization));
      } catch (err) {
        res.statusCode = statusOf(err);
        res.end((err as Error).message);
      }
    })();
  });
  await new Promise<void>((resolve) => node.listen(0, '127.0.0.1', resolve));
  nodeUrl = `http://127.0.0.1:${(node.address() as AddressInfo).port}`;
}, 60_000);
afterAll(() => new Promise<void>((resolve) => (node ? node.close(() => resolve()) : resolve())));

async function signIn(client: TestClient, email: string): Promise<void> {
  const { csrfToken } = (await (await client.get('/auth/csrf')).json()) as { csrfToken: string };
  expect((await client.post('/auth/callback/credentials', { csrfToken, email })).status).toBe(302);
}

async function joinAs(client: TestClient, email: string, organizationId: string, role: string): Promise<void> {
  await pglite.adapter.addMember({ organizationId, userId: email, role });
  await pglite.adapter.setMemberRole({ organizationId, userId: email, role });
  const { csrfToken } = (await (await client.get('/auth/csrf')).json()) as { csrfToken: string };
  expect((await client.post('/auth/organizations/active', { csrfToken, organizationId })).status).toBe(200);
}

describe('requireOrganization', () => {
  let organizationId: string;
  beforeAll(async () => {
    organizationId = (await pglite.adapter.createOrganization({ id: 'org-forms', name: 'Forms', ownerId: 'owner@example.test' })).id;
  });

  it.each(['h3', 'web', 'node'] as const)('%s: 401 signed out, 403 without the permission or once removed, the access with it', async (form) => {
    const app = h3App();
    const client = form === 'node' ? createClient({ baseUrl: nodeUrl }) : createClient({ fetch: (r) => Promise.resolve(app.fetch(r)), baseUrl: 'http://localhost:3000' });
    const path = form === 'node' ? '/api' : `/${form}`;
    const email = `${form}@example.test`;
    expect((await client.get(path)).status).toBe(401);
    await signIn(client, email);
    expect((await client.get(path)).status).toBe(403); // no active organization
    await joinAs(client, email, organizationId, 'member');
    expect((await client.get(path)).status).toBe(403); // member: no invoice:approve
    await pglite.adapter.setMemberRole({ organizationId, userId: email, role: 'billing' });
    const ok = await client.get(path);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ organizationId, userId: email, role: 'billing', permissions: ['invoice:approve'] });
    await pglite.adapter.removeMember(organizationId, email);
    expect((await client.get(path)).status).toBe(403);
  });

  it('h3 refusals are HTTPErrors with the status', async () => {
    const app = new H3();
    let caught: unknown;
    app.get('/x', async (event) => {
      try {
        return await requireOrganization(event, config);
      } catch (err) {
        caught = err;
        throw err;
      }
    });
    expect((await app.fetch(new Request('http://localhost:3000/x'))).status).toBe(401);
    expect(caught).toBeInstanceOf(HTTPError);
  });
});

describe('start-up check', () => {
  it('refuses organizations on an adapter without the methods, naming them', () => {
    const { createOrganization: _c, setMemberRole: _s, ...lacking } = pglite.adapter;
    let thrown: unknown;
    try {
      resolveConfig({ secret: TEST_SECRET, adapter: lacking, providers: [provider], organizations: {} });
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(MissingAdapterMethods);
    expect((thrown as Error).message).toContain('organizations: createOrganization, setMemberRole.');
    expect(() => resolveConfig({ secret: TEST_SECRET, adapter: pglite.adapter, providers: [provider], organizations: {} })).not.toThrow();
    expect(() => resolveConfig({ secret: TEST_SECRET, providers: [provider], organizations: {} })).toThrow(/organizations/);
  });
});

describe('start-up check of the sso option', () => {
  it('refuses sso on an adapter without the SSO methods, naming them, and sso without organizations', () => {
    const { getVerifiedDomain: _g, claimDomain: _c, ...lacking } = pglite.adapter;
    let thrown: unknown;
    try {
      resolveConfig({ secret: TEST_SECRET, adapter: lacking, providers: [provider], organizations: {}, sso: {} });
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(MissingAdapterMethods);
    expect((thrown as Error).message).toContain('sso: claimDomain, getVerifiedDomain.');
    expect((thrown as Error).message).toContain('sso_connections');
    expect(() => resolveConfig({ secret: TEST_SECRET, adapter: pglite.adapter, providers: [provider], organizations: {}, sso: {} })).not.toThrow();
    expect(() => resolveConfig({ secret: TEST_SECRET, adapter: pglite.adapter, providers: [provider], sso: {} })).toThrow(/`sso` needs the `organizations` option/);
  });
});
