// listActivity as apps call it (the docs' snippets): in an h3 app and with a web Request, the signed-in user's own
// records page by page; signed out 401; another user's records or an organization's refused without `admin: true`;
// a made-up cursor a 400, not a 500. And activityStream: the callback and the iterator get every record.
import { H3 } from 'h3';
import { describe, expect, it } from 'vitest';
import type { ActivityRecord } from '../../src/activity/types.js';
import type { AuthConfig } from '../../src/core/options.js';
import { AccessDenied, SessionRequired } from '../../src/core/errors.js';
import { activityStream, listActivity } from '../../src/index.js';
import { createAuthHandler } from '../../src/http/integrations/h3.js';
import { Credentials } from '../../src/providers/credentials.js';
import { TEST_SECRET } from '../support/auth-app.js';
import { createClient } from '../support/client.js';
import { useMigratedPGlite } from '../support/pglite.js';

const pg = useMigratedPGlite();
const PASSWORD = 'correct horse battery staple';

function setUp() {
  const forwarded: ActivityRecord[] = [];
  const stream = activityStream((records) => void forwarded.push(...records));
  const config: AuthConfig = {
    secret: TEST_SECRET,
    trustHost: true,
    adapter: pg.adapter,
    session: { strategy: 'database' },
    activity: { sinks: [stream] },
    providers: [Credentials({ credentials: { email: {}, password: {} }, authorize: (c) => (c.password === PASSWORD ? { id: String(c.email).split('@')[0], email: String(c.email) } : null) })],
  };
  const app = new H3();
  app.all('/auth/**', createAuthHandler(config));
  app.get('/api/activity', async (event) => listActivity(event, config, { cursor: event.url.searchParams.get('cursor') ?? undefined, limit: 2 }));
  app.get('/api/others', async (event) => listActivity(event, config, { userId: 'someone-else' }));
  const client = createClient({ fetch: (r) => Promise.resolve(app.fetch(r)), baseUrl: 'http://localhost' });
  return { config, client, forwarded, stream };
}

describe('listActivity', () => {
  it('pages the signed-in user’s own records in h3 and with a web Request, and refuses the rest', async () => {
    const { config, client, forwarded, stream } = setUp();
    const iterated: ActivityRecord[] = [];
    const reading = (async () => {
      for await (const r of stream) iterated.push(r);
    })();
    const user = `u${Date.now()}`;
    await pg.adapter.createUser({ id: user, email: `${user}@example.com`, emailVerified: null });
    expect((await client.get('/api/activity')).status).toBe(401);
    for (let i = 0; i < 3; i++) {
      const csrfToken = ((await (await client.get('/auth/csrf')).json()) as { csrfToken: string }).csrfToken;
      await client.post('/auth/callback/credentials', { csrfToken, email: `${user}@example.com`, password: PASSWORD });
    }
    // Pages of two, newest first, until the cursor is null.
    const first = (await (await client.get('/api/activity')).json()) as { records: ActivityRecord[]; cursor: string };
    expect(first.records.map((r) => r.kind)).toEqual(['signIn.succeeded', 'signIn.succeeded']);
    expect(first.records.every((r) => r.userId === user)).toBe(true);
    const second = (await (await client.get(`/api/activity?cursor=${first.cursor}`)).json()) as { records: ActivityRecord[]; cursor: string | null };
    expect(second.records).toHaveLength(1);
    expect(second.cursor).toBeNull();
    expect(new Set([...first.records, ...second.records].map((r) => r.id)).size).toBe(3);
    // A cursor nobody made: 400; another user's records: 403.
    const bad = await client.get('/api/activity?cursor=AAAA');
    expect(bad.status).toBe(400);
    expect((await client.get('/api/others')).status).toBe(403);

    // The web Request form, with the browser's cookies.
    const cookie = client.cookies.header('http://localhost/');
    const page = await listActivity(new Request('http://localhost/', { headers: { cookie } }), config, { limit: 10 });
    expect(page.records.map((r) => r.id).sort()).toEqual([...first.records, ...second.records].map((r) => String(r.id)).sort());
    await expect(listActivity(new Request('http://localhost/'), config)).rejects.toBeInstanceOf(SessionRequired);
    await expect(listActivity(new Request('http://localhost/', { headers: { cookie } }), config, { organizationId: 'org' })).rejects.toBeInstanceOf(AccessDenied);
    // An admin read, after the app's own check.
    expect((await listActivity(new Request('http://localhost/'), config, { admin: true, userId: user })).records).toHaveLength(3);

    // The stream got every record, by callback and by iterator.
    await new Promise((r) => setTimeout(r, 10));
    stream.close();
    await reading;
    expect(forwarded.filter((r) => r.userId === user)).toHaveLength(3);
    expect(iterated.map((r) => r.id)).toEqual(forwarded.map((r) => r.id));
    expect(stream.dropped).toBe(0);
  });
});
