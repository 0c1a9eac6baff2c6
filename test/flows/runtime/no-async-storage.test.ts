// The runtime provides each flow's machine once and forwards to the current request's implementations:
// interleaved requests must each run their own provider's code, never a neighbour's.
import { describe, expect, it } from 'vitest';
import { implementationStore } from '../../src/machines/provided.js';
import { Credentials } from '../../src/providers/credentials.js';
import { testAuth } from '../support/auth-app.js';

const slow = (id: string, delayMs: number) =>
  Credentials({
    id,
    name: id,
    authorize: async (c) => {
      await new Promise((r) => setTimeout(r, delayMs));
      return { id: `${id}-user`, email: `${String(c.email)}`, name: id };
    },
  });

describe('implementations provided per request', () => {
  it('interleaved sign-ins with two providers of one flow each run their own authorize', async () => {
    const t = testAuth({ providers: [slow('first', 40), slow('second', 5)] });
    const clients = Array.from({ length: 6 }, () => t.newClient());
    const results = await Promise.all(
      clients.map(async (client, i) => {
        const provider = i % 2 === 0 ? 'first' : 'second';
        const csrfToken = await t.csrfToken(client);
        const res = await client.post(`/auth/callback/${provider}`, { csrfToken, email: `u${i}@example.test` });
        expect(res.status).toBe(302);
        const session = (await (await client.get('/auth/session')).json()) as { user: { name: string; email: string } };
        return { provider, session };
      }),
    );
    for (const [i, { provider, session }] of results.entries()) {
      expect(session.user.name).toBe(provider);
      expect(session.user.email).toBe(`u${i}@example.test`);
    }
  });

  it('switches the implementation store off once no flow runs, so other requests pay no async hook for it', async () => {
    let entered!: () => void;
    let release!: () => void;
    const inAuthorize = new Promise<void>((r) => (entered = r));
    const gate = new Promise<void>((r) => (release = r));
    const held = Credentials({
      id: 'held',
      authorize: async (c) => {
        entered();
        await gate;
        return { id: 'held-user', email: String(c.email) };
      },
    });
    const t = testAuth({ providers: [held] });
    const client = t.newClient();
    const csrfToken = await t.csrfToken(client);
    // Node 20 marks an AsyncLocalStorage in use with `enabled`; fail loudly if a Node version drops it.
    expect('enabled' in implementationStore).toBe(true);
    const store = implementationStore as unknown as { enabled: boolean };
    const signIn = client.post('/auth/callback/held', { csrfToken, email: 'a@example.test' });
    await inAuthorize;
    expect(store.enabled).toBe(true);
    release();
    expect((await signIn).status).toBe(302);
    expect(store.enabled).toBe(false);
  });
});
