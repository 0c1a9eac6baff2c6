// A magic link whose spend fails (another request used it meanwhile) gives its single-use claim back exactly once:
// a second release could free a claim another request has taken since, letting a third one in. Both places a proven
// link is spent: with the session, and alone when the sign-in pauses for a second factor.
import { describe, expect, it } from 'vitest';
import type { Adapter } from '../../src/core/adapter.js';
import type { ThrottleStore } from '../../src/core/throttle/options.js';
import { memoryThrottleStore } from '../../src/core/throttle/store.js';
import { testAuth } from '../support/auth-app.js';
import { activeTotp } from '../support/factors.js';
import { memoryOutbox, signInByLink } from '../support/magic-link.js';
import { useMigratedPGlite } from '../support/pglite.js';

const pg = useMigratedPGlite();

/** A memory throttle store that records every claim released (`delete`) on the single-use counter. */
function countingStore(released: string[]): ThrottleStore {
  const base = memoryThrottleStore();
  return {
    kind: base.kind,
    counter(name, rule) {
      const counter = base.counter(name, rule);
      if (name !== 'single-use') return counter;
      return {
        consume: (key, points) => counter.consume(key, points),
        reward: (key, points) => counter.reward(key, points),
        delete: (key) => (released.push(key), counter.delete(key)),
      };
    },
  };
}

/** The database adapter, whose transactions find the token already used when they come to spend it. */
function spentMeanwhile(): Adapter {
  const adapter = pg.adapter;
  return {
    ...adapter,
    withTransaction: (fn) => adapter.withTransaction!((tx) => fn({ ...tx, useVerificationToken: async () => null })),
  } as Adapter;
}

async function failedLinkSignIn(email: string, secondFactor: boolean): Promise<string[]> {
  const released: string[] = [];
  const outbox = memoryOutbox();
  const t = testAuth({ adapter: spentMeanwhile(), throttle: { store: countingStore(released) }, providers: [outbox.provider], ...(secondFactor ? { secondFactor: {} } : {}) });
  const res = await signInByLink(t, outbox, email);
  expect(res.location?.pathname).toBe('/auth/error');
  expect(res.location?.searchParams.get('error')).toBe('Verification');
  expect(t.logger.errorTypes()).toContain('Verification');
  return released;
}

describe('a link whose spend fails', () => {
  it('gives its claim back once when the session issue cannot spend it', async () => {
    const released = await failedLinkSignIn('spent.meanwhile@example.com', false);
    expect(released).toHaveLength(1);
  });

  it('gives its claim back once when the sign-in pauses for a second factor and cannot spend it', async () => {
    const email = 'guarded.meanwhile@example.com';
    const user = await pg.adapter.createUser({ id: 'spend-release-2fa', email, emailVerified: new Date() });
    await activeTotp(pg.adapter, String(user.id));
    const released = await failedLinkSignIn(email, true);
    expect(released).toHaveLength(1);
  });
});
