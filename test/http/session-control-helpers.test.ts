// Session control from application code (listUserSessions, revokeUserSession, revokeOtherUserSessions,
// revokeAllUserSessions): in an H3 app (the event's response carries the cookies) and fetch style (the caller's
// Headers carry them), on database sessions and JWT sessions (PGlite).
import { H3 } from 'h3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AuthConfig } from '../../src/core/options.js';
import { listUserSessions, revokeAllUserSessions, revokeOtherUserSessions, revokeUserSession } from '../../src/index.js';
import { createAuthHandler } from '../../src/http/integrations/h3.js';
import { Credentials } from '../../src/providers/credentials.js';
import { ORIGIN, recordingLogger, TEST_SECRET } from '../support/auth-app.js';
import { createClient, type TestClient } from '../support/client.js';
import { useMigratedPGlite } from '../support/pglite.js';

const pg = useMigratedPGlite();
const UPDATE_AGE = 60;
let n = 0;

const provider = Credentials({ credentials: { email: {} }, authorize: (c) => ({ id: String(c.email), email: String(c.email) }) });

function harness(strategy: 'jwt' | 'database') {
  const config: AuthConfig = { secret: TEST_SECRET, trustHost: true, logger: recordingLogger(), adapter: pg.adapter, session: { strategy, updateAge: UPDATE_AGE }, providers: [provider] };
  const app = new H3();
  app.all('/auth/**', createAuthHandler(config));
  app.get('/h3/devices', async (event) => ({ sessions: (await listUserSessions(event, config)) ?? null }));
  app.post('/h3/devices/end', async (event) => ({ ended: await revokeUserSession(event, config, new URL(event.req.url).searchParams.get('id')!) }));
  app.post('/h3/devices/others', async (event) => ({ ended: await revokeOtherUserSessions(event, config) }));
  app.post('/h3/devices/all', async (event) => ({ ended: await revokeAllUserSessions(event, config) }));
  // Fetch style: a plain Request in, a Response out that carries the cookies the helper set.
  const fetchOthers = async (request: Request) => {
    const headers = new Headers({ 'content-type': 'application/json' });
    const ended = await revokeOtherUserSessions(request, config, { cookies: headers });
    return new Response(JSON.stringify({ ended }), { headers });
  };
  const fetch = async (request: Request): Promise<Response> => (new URL(request.url).pathname === '/fetch/devices/others' ? fetchOthers(request) : app.fetch(request));
  const client = () => createClient({ fetch, baseUrl: ORIGIN });
  const email = `sc-${++n}-${process.pid}@example.test`;
  const signIn = async (c: TestClient) => {
    const csrfToken = ((await (await c.get('/auth/csrf')).json()) as { csrfToken: string }).csrfToken;
    expect((await c.post('/auth/callback/credentials', { csrfToken, email })).status).toBe(302);
  };
  return { client, signIn, email };
}

type Devices = { sessions: { id: string; current: boolean }[] | null };
const devices = async (c: TestClient) => ((await (await c.get('/h3/devices')).json()) as Devices).sessions;
const ended = async (c: TestClient, path: string) => ((await (await c.post(path, '')).json()) as { ended: unknown }).ended;
const signedIn = async (c: TestClient) => ((await (await c.get('/auth/session')).json()) as unknown) !== null;

describe('session control helpers', () => {
  afterEach(() => vi.useRealTimers());

  it('h3, database sessions: lists the devices, ends one by id, the others, then every one (cookie cleared)', async () => {
    const h = harness('database');
    const [laptop, phone, tablet] = [h.client(), h.client(), h.client()];
    for (const c of [laptop, phone, tablet]) await h.signIn(c);
    const listed = (await devices(laptop))!;
    expect(listed).toHaveLength(3);
    expect(listed.filter((s) => s.current)).toHaveLength(1);
    const phoneId = (await devices(phone))!.find((s) => s.current)!.id;
    expect(await ended(laptop, `/h3/devices/end?id=${encodeURIComponent(phoneId)}`)).toBe(true);
    expect(await signedIn(phone)).toBe(false);
    expect(await ended(laptop, '/h3/devices/others')).toBe(1);
    expect(await signedIn(tablet)).toBe(false);
    expect(await signedIn(laptop)).toBe(true);
    const all = await laptop.post('/h3/devices/all', '');
    expect(all.setCookie.some((l) => /^authchart\.session-token=;/.test(l))).toBe(true);
    expect(await signedIn(laptop)).toBe(false);
    expect(await devices(laptop)).toBeNull();
  });

  it('fetch style, JWT sessions: the rewritten cookie goes out on the caller\'s headers, so this session outlives the cut-off', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.UTC(2026, 10, 23, 12, 0, 0, 500) });
    const h = harness('jwt');
    const [laptop, phone] = [h.client(), h.client()];
    await h.signIn(laptop);
    await h.signIn(phone);
    vi.setSystemTime(Date.now() + 1000);
    const res = await laptop.post('/fetch/devices/others', '');
    expect(await res.json()).toEqual({ ended: 0 });
    expect(res.setCookie.some((l) => l.startsWith('authchart.session-token='))).toBe(true);
    vi.setSystemTime(Date.now() + (UPDATE_AGE + 1) * 1000);
    expect(await signedIn(phone)).toBe(false);
    expect(await signedIn(laptop)).toBe(true);
  });
});
