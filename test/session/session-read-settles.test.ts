// A plain JWT session read settles without a turn of the event loop, and what a callback or codec hands back
// asynchronously is still awaited: a promise or any thenable from the session callback, null from it, an app's own
// async `jwt.decode`, an async "sessions valid after" store.
import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/core/types.js';
import { decode } from '../../src/session/jwt.js';
import { testAuth } from '../support/auth-app.js';
import { ADA, adaProvider, sessionClears, signIn } from '../http/helpers.js';

async function signedIn(config: Parameters<typeof testAuth>[0]) {
  const t = testAuth(config);
  expect((await signIn(t)).status).toBe(302);
  return t;
}

describe('the JWT session read', () => {
  it('awaits a thenable that is not a Promise from the session callback', async () => {
    const t = await signedIn({
      providers: [adaProvider()],
      callbacks: { session: ({ session }) => ({ then: (resolve: (s: Session) => void) => resolve({ ...session, via: 'thenable' } as Session) }) as unknown as Session },
    });
    const body = (await (await t.client.get('/auth/session')).json()) as { via?: string; user?: { email?: string } };
    expect(body.via).toBe('thenable');
    expect(body.user?.email).toBe(ADA.email);
  });

  it('awaits a promise from the session callback', async () => {
    const t = await signedIn({ providers: [adaProvider()], callbacks: { session: async ({ session }) => ({ ...session, via: 'promise' }) as Session } });
    expect(((await (await t.client.get('/auth/session')).json()) as { via?: string }).via).toBe('promise');
  });

  it('answers null when the session callback returns null', async () => {
    const t = await signedIn({ providers: [adaProvider()], callbacks: { session: () => null as unknown as Session } });
    const res = await t.client.get('/auth/session');
    expect(res.status).toBe(200);
    expect(await res.json()).toBeNull();
  });

  it('uses an app’s own async jwt.decode, and clears the cookie when it refuses', async () => {
    let calls = 0;
    const t = await signedIn({ providers: [adaProvider()], jwt: { decode: async (params) => (calls++, decode(params)) } });
    expect(((await (await t.client.get('/auth/session')).json()) as { user?: { email?: string } }).user?.email).toBe(ADA.email);
    expect(calls).toBeGreaterThan(0);
    const refusing = await signedIn({ providers: [adaProvider()], jwt: { decode: async () => null } });
    const res = await refusing.client.get('/auth/session');
    expect(await res.json()).toBeNull();
    expect(sessionClears(res)).toHaveLength(1);
  });

  it('applies an async "sessions valid after" store', async () => {
    const times = new Map<string, Date>();
    const t = await signedIn({ providers: [adaProvider()], session: { validAfter: { get: async (id) => times.get(id) ?? null, set: async () => {} } } });
    expect(await (await t.client.get('/auth/session')).json()).not.toBeNull();
    times.set(ADA.id, new Date(Date.now() + 60_000));
    const res = await t.client.get('/auth/session');
    expect(await res.json()).toBeNull();
    expect(sessionClears(res)).toHaveLength(1);
  });
});
