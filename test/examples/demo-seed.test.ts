import { afterAll, describe, expect, it } from 'vitest';
import { DEMO_EMAIL, seedDemoAccount } from '../../examples/demo/config.js';
import { openDemoDatabase, type DemoDatabase } from '../../examples/demo/database.js';

// Two demo instances on one database (scripts/instances.ts, the load test) seed the demo account at the same
// moment: both find no user and both make one. The loser must read the winner's user, not exit.
describe('the demo account seed', () => {
  let db: DemoDatabase | undefined;
  afterAll(async () => db?.close());

  it('survives two seeds at once on one database, leaving one user with a password', async () => {
    db = await openDemoDatabase({ DEMO_DATABASE: 'memory' });
    await Promise.all([seedDemoAccount(db), seedDemoAccount(db), seedDemoAccount(db)]);
    const user = await db.adapter.getUserByEmail(DEMO_EMAIL);
    expect(user?.id).toBe('demo');
    expect(await db.adapter.getPasswordHash('demo')).toMatch(/^\$argon2id\$/);
  });
});
