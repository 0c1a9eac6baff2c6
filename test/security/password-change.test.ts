// Attacks on the built-in change-password flow, against the real PostgreSQL: a change without a recent sign-in, from
// a session that another change ended (JWT and database), guessing the current password (limited per account),
// malformed new passwords (200 KB, NUL, a lone surrogate), and a flow cookie carried into another user's browser.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { PostgresAdapter, type PostgresAdapterInstance } from '../../src/adapters/postgres/index.js';
import { hashNewPassword, Password } from '../../src/providers/password/index.js';
import { MAX_WRONG_CURRENT } from '../../src/flows/password/change-steps.js';
import { ORIGIN, testAuth, type TestAuth } from '../support/auth-app.js';
import type { TestClient } from '../support/client.js';
import { useSharedStores } from '../support/shared-stores.js';

const OLD = 'correct horse battery staple';
const NEW = 'a brand new long passphrase';
const stores = useSharedStores();
let adapter: PostgresAdapterInstance;
beforeAll(async () => {
  adapter = PostgresAdapter(stores.pool(await stores.schema(), { max: 4 }));
});

function app(strategy: 'jwt' | 'database' = 'database', maxAge?: number): TestAuth {
  return testAuth({ adapter, session: { strategy }, throttle: { enabled: false }, providers: [Password(maxAge ? { change: { maxAge } } : {})] });
}

async function user(): Promise<{ id: string; email: string }> {
  const email = `lee-${randomUUID()}@example.com`;
  const { id } = await adapter.createUser({ id: randomUUID(), email, emailVerified: new Date() });
  await adapter.setPasswordHash(id, await hashNewPassword(OLD));
  return { id, email };
}

async function signIn(auth: TestAuth, client: TestClient, email: string) {
  await client.post('/auth/callback/password', { csrfToken: await auth.csrfToken(client), email, password: OLD, callbackUrl: `${ORIGIN}/home` });
}

const start = async (auth: TestAuth, client: TestClient) => client.post('/auth/flows/change-password/start', { csrfToken: await auth.csrfToken(client) });
// As JSON (escaped), since a form's UTF-8 cannot carry a lone surrogate: the browser would send U+FFFD.
const submit = async (auth: TestAuth, client: TestClient, current: string, next: string) => client.post('/auth/flows/change-password', { csrfToken: await auth.csrfToken(client), current, next }, { json: true });

describe('change password: attacks', () => {
  it('refuses a change without a recent sign-in: the browser is sent to sign in again, nothing is stored', async () => {
    const auth = app('database', 1);
    const lee = await user();
    const before = await adapter.getPasswordHash(lee.id);
    await signIn(auth, auth.client, lee.email);
    await new Promise((r) => setTimeout(r, 2100));
    const res = await start(auth, auth.client);
    expect(res.status).toBe(302);
    expect(res.location?.pathname).toBe('/auth/signin');
    expect((await submit(auth, auth.client, OLD, NEW)).status).toBe(302);
    expect(await adapter.getPasswordHash(lee.id)).toBe(before);
  });

  for (const strategy of ['jwt', 'database'] as const) {
    it(`refuses a session that a change ended (${strategy}): a thief's session cannot change the password back`, async () => {
      const auth = app(strategy);
      const lee = await user();
      const thief = auth.newClient();
      await signIn(auth, auth.client, lee.email);
      await signIn(auth, thief, lee.email);
      await start(auth, auth.client);
      expect((await submit(auth, auth.client, OLD, NEW)).status).toBe(302);
      const after = await adapter.getPasswordHash(lee.id);
      const res = await start(auth, thief);
      expect(res.status).toBe(302);
      expect(res.location?.pathname).toBe('/auth/signin');
      expect(await adapter.getPasswordHash(lee.id)).toBe(after);
    });
  }

  it('limits wrong current passwords per account, across flows and browsers: then even the right one is refused', async () => {
    const auth = app();
    const lee = await user();
    const before = await adapter.getPasswordHash(lee.id);
    await signIn(auth, auth.client, lee.email);
    await start(auth, auth.client);
    for (let i = 0; i < MAX_WRONG_CURRENT; i++) expect(await (await submit(auth, auth.client, `guess ${i} wrong`, NEW)).text()).toContain('That is not your current password.');
    const other = auth.newClient();
    await signIn(auth, other, lee.email);
    await start(auth, other);
    const limited = await submit(auth, other, OLD, NEW);
    expect(limited.status).toBe(400);
    expect(await limited.text()).toContain('Too many wrong passwords.');
    expect(await adapter.getPasswordHash(lee.id)).toBe(before);
  });

  it('answers a 200 KB body with 413, and a 10 KB, NUL or lone-surrogate password beside its field, never with a 500', async () => {
    const auth = app();
    const lee = await user();
    const before = await adapter.getPasswordHash(lee.id);
    await signIn(auth, auth.client, lee.email);
    await start(auth, auth.client);
    for (const [bad, says] of [['x'.repeat(10_000), 'Use at most'], ['long enough\0password', 'cannot be used'], ['long enough \uD800 password', 'cannot be used']] as const) {
      const res = await submit(auth, auth.client, OLD, bad);
      expect(res.status).toBe(400);
      expect(await res.text()).toContain(says);
      const asCurrent = await submit(auth, auth.client, bad, NEW);
      expect(asCurrent.status).toBe(400);
    }
    expect(await adapter.getPasswordHash(lee.id)).toBe(before);
    // 200 KB never reaches the flow: the body limit answers 413, not 500.
    expect((await submit(auth, auth.client, OLD, 'x'.repeat(200_000))).status).toBe(413);
  });

  it("refuses a flow cookie carried into another user's browser", async () => {
    const auth = app();
    const lee = await user();
    const mallory = await user();
    const victim = auth.newClient();
    await signIn(auth, auth.client, mallory.email);
    await signIn(auth, victim, lee.email);
    await start(auth, auth.client);
    const slot = auth.client.cookies.all(ORIGIN).find((c) => c.name.includes('change-password'));
    expect(slot).toBeDefined();
    const before = await adapter.getPasswordHash(lee.id);
    victim.cookies.set(slot!.name, slot!.value, ORIGIN);
    const res = await submit(auth, victim, OLD, NEW);
    expect(res.status).toBe(302);
    expect(res.location?.searchParams.get('error')).toBe('AccessDenied');
    expect(await adapter.getPasswordHash(lee.id)).toBe(before);
  });
});
