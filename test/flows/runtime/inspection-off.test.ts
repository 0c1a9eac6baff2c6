// No inspection work unless someone reads it: every actor the runtime creates is counted, and only a configuration
// that reads flow records (debug output) attaches an inspect callback; production-like runs attach none.
import { afterEach, describe, expect, it, vi } from 'vitest';

const actors = { created: 0, inspected: 0 };
vi.mock('xstate', async (importOriginal) => {
  const xstate = await importOriginal<typeof import('xstate')>();
  return {
    ...xstate,
    createActor: ((logic: Parameters<typeof xstate.createActor>[0], options?: { inspect?: unknown }) => {
      actors.created += 1;
      if (options?.inspect) actors.inspected += 1;
      return xstate.createActor(logic, options as never);
    }) as typeof xstate.createActor,
  };
});

const { Credentials } = await import('../../../src/providers/credentials.js');
const { testAuth } = await import('../../support/auth-app.js');

const provider = () => Credentials({ credentials: { username: {}, password: {} }, authorize: (c) => (c.password === 'pw' ? { id: 'u1', name: 'Ada' } : null) });

async function signIns(logger: Parameters<typeof testAuth>[0]['logger']): Promise<void> {
  const t = testAuth({ providers: [provider()], logger });
  for (const password of ['pw', 'wrong', 'pw']) {
    const client = t.newClient();
    const csrfToken = await t.csrfToken(client);
    expect((await client.post('/auth/callback/credentials', { csrfToken, username: 'ada', password })).status).toBe(302);
  }
}

afterEach(() => {
  actors.created = 0;
  actors.inspected = 0;
});

describe('inspection', () => {
  it('is not attached to any actor when nothing reads the records', async () => {
    await signIns({ error: () => {}, warn: () => {} });
    // Three flow runs, two of them through the sign-in tail.
    expect(actors.created).toBeGreaterThanOrEqual(5);
    expect(actors.inspected).toBe(0);
  });

  it('is attached to every actor when debug output reads them', async () => {
    await signIns({ error: () => {}, warn: () => {}, debug: () => {} });
    expect(actors.created).toBeGreaterThanOrEqual(5);
    expect(actors.inspected).toBe(actors.created);
  });
});
