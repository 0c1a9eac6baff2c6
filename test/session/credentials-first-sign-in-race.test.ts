// Two first credentials sign-ins of one user at the same moment (a double click, two tabs), with database sessions:
// both find no `credentials` account row and both write one; the write that comes second fails on the unique key.
// Both sign-ins must still sign the user in, as one user with one row, on PGlite and on the PostgreSQL server.
import { afterAll, describe, expect, it } from 'vitest';
import { Credentials } from '../../src/providers/credentials.js';
import { testAuth } from '../support/auth-app.js';
import { PASSWORD, pgliteDatabase, serverSchema, type TestDatabase } from './database-harness.js';

const databases: [string, () => Promise<TestDatabase>][] = [['PGlite', pgliteDatabase]];
if (process.env.DATABASE_URL) databases.push(['PostgreSQL server', () => serverSchema(process.env.DATABASE_URL!)]);
const opened: TestDatabase[] = [];
afterAll(async () => {
  for (const d of opened) await d.close();
});

describe.each(databases)('on %s', (_name, open) => {
  let serial = 0;
  const person = () => `racer-${++serial}-${process.pid}`;

  async function signInTwiceAtOnce(d: TestDatabase, who: string, provider = Credentials({ credentials: { username: {}, password: {} }, authorize: (c) => (c.password === PASSWORD ? { id: who, email: `${who}@example.test` } : null) })) {
    const t = testAuth({ adapter: d.adapter, session: { strategy: 'database' }, providers: [provider] });
    const tabs = [t.newClient(), t.newClient(), t.newClient()];
    const tokens = await Promise.all(tabs.map((c) => t.csrfToken(c)));
    const answers = await Promise.all(tabs.map((c, i) => c.post('/auth/callback/credentials', { csrfToken: tokens[i], username: who, password: PASSWORD })));
    return { t, tabs, answers };
  }

  it('a new user signing in from three tabs at once: every tab signed in, one user, one account row', async () => {
    const d = await open();
    opened.push(d);
    const who = person();
    const { t, tabs, answers } = await signInTwiceAtOnce(d, who);
    expect(answers.map((r) => r.location?.searchParams.get('error') ?? r.status)).toEqual([302, 302, 302]);
    for (const tab of tabs) expect(((await (await tab.get('/auth/session')).json()) as { user?: { email?: string } }).user?.email).toBe(`${who}@example.test`);
    expect(await d.sql(`SELECT id FROM users WHERE email = $1`, [`${who}@example.test`])).toHaveLength(1);
    expect(await d.sql(`SELECT user_id FROM accounts WHERE provider = 'credentials' AND provider_account_id = $1`, [who])).toHaveLength(1);
    expect(t.logger.errorTypes()).toEqual([]);
  });

  it('a stored user (by id) linked from three tabs at once: every tab signed in, one account row', async () => {
    const d = await open();
    opened.push(d);
    const who = person();
    await d.adapter.createUser({ id: who, email: `${who}@example.test`, emailVerified: null });
    const { t, tabs, answers } = await signInTwiceAtOnce(d, who);
    expect(answers.map((r) => r.location?.searchParams.get('error') ?? r.status)).toEqual([302, 302, 302]);
    for (const tab of tabs) expect(((await (await tab.get('/auth/session')).json()) as { user?: { email?: string } }).user?.email).toBe(`${who}@example.test`);
    expect(await d.sql(`SELECT user_id FROM accounts WHERE provider = 'credentials' AND provider_account_id = $1`, [who])).toEqual([{ user_id: who }]);
    expect(t.logger.errorTypes()).toEqual([]);
  });
});
