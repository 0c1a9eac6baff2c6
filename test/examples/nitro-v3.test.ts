// examples/nitro-v3: authchart in a Nitro 3 app (h3 v2), built by Nitro and run as its output server. The same build
// then runs with DATABASE_URL (a migrated PostgreSQL schema of this file's own): organizations on, and the example's
// /team routes check a permission in the active organization with requireOrganization.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type TestClient } from '../support/client.js';
import { freePort, startExample, type NitroApp } from '../support/nitro-app.js';
import { DATABASE_URL, useSharedStores } from '../support/shared-stores.js';
import { csrfTokenOf, signInWithCredentials } from '../support/signin-over-http.js';
import { nitroExampleSuite } from './nitro-suite.js';

nitroExampleSuite('nitro-v3', 'Nitro 3 example (h3 v2)');

describe('Nitro 3 example with organizations (DATABASE_URL set)', () => {
  const stores = useSharedStores();
  let app: NitroApp;
  const browser = (): TestClient => createClient({ baseUrl: app.origin });

  beforeAll(async () => {
    // The build the suite above made; this run only adds the database.
    const schema = await stores.schema();
    const url = new URL(DATABASE_URL);
    url.searchParams.set('options', `-c search_path=${schema}`);
    const port = await freePort();
    app = await startExample('nitro-v3', port, { AUTH_SECRET: randomBytes(32).toString('base64url'), AUTH_URL: `http://127.0.0.1:${port}`, DATABASE_URL: url.href });
  }, 60_000);
  afterAll(async () => {
    await app?.stop();
  });

  it('signed out 401; signed in without an organization 403; after creating one, its owner reads and publishes', async () => {
    const client = browser();
    expect((await client.get('/team')).status).toBe(401);
    const signedIn = await signInWithCredentials(client, { email: 'ada@example.test', password: 'analytical-engine' }, `${app.origin}/`);
    expect(signedIn.status).toBe(302);
    expect((await client.get('/team')).status).toBe(403);

    const created = await client.post('/auth/organizations', { csrfToken: await csrfTokenOf(client), name: 'Analytical Society' });
    expect(created.status).toBeLessThan(400);
    const team = await client.get('/team');
    expect(team.status).toBe(200);
    const body = (await team.json()) as { userId: string; organization: { organizationId: string; role: string } };
    expect(body).toMatchObject({ userId: 'ada', organization: { role: 'owner' } });
    const published = await client.post('/team/publish', {});
    expect(published.status).toBe(200);
    expect(await published.json()).toEqual({ published: true, organizationId: body.organization.organizationId });
    // The session route carries the active organization.
    const session = (await (await client.get('/auth/session')).json()) as { organization?: { id: string; role: string } };
    expect(session.organization).toMatchObject({ id: body.organization.organizationId, role: 'owner' });
  });
});
