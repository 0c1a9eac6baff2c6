// The fault suite, part two: a slow database at the two points where a late write used to outlive the answer.
// PostgreSQL itself is made slow (a trigger that sleeps past `storeTimeout`) right after the magic-link token is
// spent, right after the session row is written, and during COMMIT. Invariant: a client that got an error never finds
// its link or code burnt, and no session row exists that no browser holds; a client told it is signed in is.
import { randomBytes } from 'node:crypto';
import type { Pool } from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { PostgresAdapter } from '../../src/adapters/postgres/index.js';
import { testAuth, type TestAuth } from '../support/auth-app.js';
import type { ClientResponse, TestClient } from '../support/client.js';
import { memoryOutbox, requestLink, type Outbox } from '../support/magic-link.js';
import { useSharedStores } from '../support/shared-stores.js';
import { passwordProvider, readSession, signIn, writes } from '../session/database-harness.js';

const DEADLINE = 300;
// Well past the deadline, well inside what a test may wait.
const SLOW = 2 * DEADLINE;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const stores = useSharedStores();
const db = {} as { pool: Pool; admin: Pool };

// A trigger that sleeps as long as `slow_points` says for its table and timing: the database is slow *after* the row
// changed (the token is spent, the session row written) and before the statement (or the COMMIT) answers.
const SLOW_TRIGGERS = `
  CREATE TABLE slow_points (point text PRIMARY KEY, ms int NOT NULL);
  CREATE FUNCTION slow_point() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM pg_sleep(coalesce((SELECT ms FROM slow_points WHERE point = TG_ARGV[0]), 0) / 1000.0);
    RETURN NULL;
  END $$;
  CREATE TRIGGER slow_spend AFTER DELETE ON verification_token FOR EACH ROW EXECUTE FUNCTION slow_point('spend');
  CREATE TRIGGER slow_session AFTER INSERT ON sessions FOR EACH ROW EXECUTE FUNCTION slow_point('session');
  CREATE CONSTRAINT TRIGGER slow_commit AFTER INSERT ON sessions DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION slow_point('commit');`;

beforeAll(async () => {
  const schema = await stores.schema();
  db.admin = stores.pool(schema, { max: 1 });
  await db.admin.query(SLOW_TRIGGERS);
  db.pool = stores.pool(schema);
}, 60_000);

async function slowAt(point: 'spend' | 'session' | 'commit' | null): Promise<void> {
  await db.admin.query('DELETE FROM slow_points');
  if (point) await db.admin.query('INSERT INTO slow_points (point, ms) VALUES ($1, $2)', [point, SLOW]);
}

/** Session rows of the user with this address: each must be held by a browser that was told it is signed in. */
async function sessionRows(email: string): Promise<number> {
  const { rows } = await db.admin.query<{ n: number }>('SELECT count(*)::int AS n FROM sessions s JOIN users u ON u.id = s.user_id WHERE u.email = $1', [email]);
  return rows[0]!.n;
}

async function tokensLeft(email: string): Promise<number> {
  const { rows } = await db.admin.query<{ n: number }>('SELECT count(*)::int AS n FROM verification_token WHERE identifier = $1', [email]);
  return rows[0]!.n;
}

const address = (tag: string) => `${tag}-${randomBytes(4).toString('hex')}@late.test`;
const errorOf = (res: ClientResponse) => res.location?.searchParams.get('error') ?? null;
const signedInAs = async (client: TestClient) => (await readSession(client)).body?.user?.email ?? null;

function setup(strategy: 'database' | 'jwt', codes = false): { t: TestAuth; outbox: Outbox } {
  const outbox = memoryOutbox(codes ? { confirm: false, code: { maxAttempts: 3, resendCooldown: 0 } } : {});
  const t = testAuth({ adapter: PostgresAdapter(db.pool), providers: [outbox.provider, passwordProvider()], session: { strategy }, storeTimeout: DEADLINE });
  return { t, outbox };
}

/** Waits until the slowed statement would have ended on its own, so what it would still write has been written. */
const afterTheSlowWork = () => sleep(SLOW + 200);

describe('a slow database after the token is spent or the session written', () => {
  for (const [strategy, point] of [['database', 'spend'], ['database', 'session'], ['jwt', 'spend']] as const) {
    it(`magic link, ${strategy} sessions, slow after "${point}": 503, then the same link still signs in, and no orphan session`, async () => {
      const { t, outbox } = setup(strategy);
      const email = address(`link-${point}`);
      await slowAt(null);
      await requestLink(t, email);
      const link = outbox.linkFor(email);
      await slowAt(point);
      const res = await t.client.get(link);
      expect(errorOf(res)).toBe('ServiceUnavailable');
      expect(writes(res)).toEqual([]);
      await afterTheSlowWork();
      await slowAt(null);
      expect(await sessionRows(email), 'no session row that no browser holds').toBe(0);
      expect(await tokensLeft(email), 'the link is not burnt').toBe(1);
      const again = await t.client.get(link);
      expect(errorOf(again)).toBeNull();
      expect(again.location?.pathname).toBe('/after');
      expect(await signedInAs(t.client)).toBe(email);
      expect(await sessionRows(email)).toBe(strategy === 'database' ? 1 : 0);
      expect(await tokensLeft(email)).toBe(0);
    });
  }

  it('e-mail code, slow after the session row is written: 503, then the same code still signs in, and no orphan session', async () => {
    const { t, outbox } = setup('database', true);
    const email = address('code');
    await slowAt(null);
    await requestLink(t, email);
    const code = outbox.sent.findLast((m) => m.identifier === email)!.code!;
    const submit = async () => t.client.post('/auth/callback/email', { csrfToken: await t.csrfToken(), code });
    await slowAt('session');
    const res = await submit();
    expect(errorOf(res)).toBe('ServiceUnavailable');
    expect(writes(res)).toEqual([]);
    await afterTheSlowWork();
    await slowAt(null);
    expect(await sessionRows(email)).toBe(0);
    expect(await tokensLeft(email)).toBe(1);
    const again = await submit();
    expect(again.location?.pathname).toBe('/after');
    expect(await signedInAs(t.client)).toBe(email);
    expect(await sessionRows(email)).toBe(1);
  });

  it('credentials, database sessions, slow after the session row is written: 503 and no orphan session row', async () => {
    const { t } = setup('database');
    const email = address('password');
    await slowAt('session');
    const res = await signIn(t, email);
    expect(errorOf(res)).toBe('ServiceUnavailable');
    expect(writes(res)).toEqual([]);
    await afterTheSlowWork();
    await slowAt(null);
    expect(await sessionRows(email)).toBe(0);
  });

  it('a COMMIT that answers after the deadline is waited for: the client is told it is signed in, and holds the row', async () => {
    // PostgreSQL's statement_timeout does not stop a COMMIT (its deferred triggers here): the outcome is the
    // database's, and the answer must be that outcome, not an error over a committed session.
    const { t } = setup('database');
    const email = address('commit');
    await slowAt('commit');
    const started = Date.now();
    const res = await signIn(t, email);
    expect(Date.now() - started).toBeGreaterThan(SLOW);
    await slowAt(null);
    expect(errorOf(res)).toBeNull();
    expect(res.location?.pathname).toBe('/home');
    expect(writes(res)).toHaveLength(1);
    expect(await sessionRows(email)).toBe(1);
    expect(await signedInAs(t.client)).toBe(email);
  });
});
