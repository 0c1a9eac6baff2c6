// The runtime provides each flow's machine once and forwards to the current request's implementations:
// interleaved requests must each run their own provider's code, never a neighbour's.
import { describe, expect, it } from 'vitest';
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
});
