// No work after the answer: a transaction whose deadline passed is answered ServiceUnavailable at once, and what it
// would still write is rolled back, never committed behind the caller's back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wrapAdapter } from '../../src/core/adapter-wrap.js';
import { ServiceUnavailable } from '../../src/core/errors.js';
import { pgliteDatabase, type TestDatabase } from '../session/database-harness.js';

const DEADLINE = 200;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a transaction past its deadline', () => {
  let d: TestDatabase;
  beforeAll(async () => {
    d = await pgliteDatabase();
  });
  afterAll(async () => {
    await d?.close();
  });

  it('answers ServiceUnavailable within the deadline and leaves no row once the slow work ends', async () => {
    const adapter = wrapAdapter(d.adapter, { debug: () => {} }, { timeout: DEADLINE });
    const email = `late-${Date.now()}@example.test`;
    let finished: Promise<unknown> = Promise.resolve();
    const started = Date.now();
    const answer = adapter.withTransaction!(async (tx) => {
      const work = (async () => {
        await sleep(DEADLINE * 2); // the database (or a callback) is slow: the caller has its answer by now
        await tx.createUser({ id: '', email, emailVerified: null });
      })();
      finished = work.catch(() => {});
      await work;
    });
    await expect(answer).rejects.toBeInstanceOf(ServiceUnavailable);
    expect(Date.now() - started).toBeLessThan(DEADLINE + 150);
    await finished;
    await sleep(50);
    expect(await d.sql('SELECT id FROM users WHERE email = $1', [email])).toEqual([]);
  });
});
