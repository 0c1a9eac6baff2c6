// A magic link opened many times at once, on two instances that share the database but not their memory (each has
// its own single-use claims). The token is spent only in the transaction that writes the session, after it was looked
// up: that look-up must not let two requests through. The database's DELETE decides: exactly one browser is signed
// in, and exactly one session row exists. Real PostgreSQL (DATABASE_URL, a schema of this file's own); the spend is
// made slow (a trigger sleeping while the row lock is held) so that every request is in flight together.
import { randomBytes } from 'node:crypto';
import type { Pool } from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { PostgresAdapter } from '../../src/adapters/postgres/index.js';
import { testAuth } from '../support/auth-app.js';
import { memoryOutbox, requestLink } from '../support/magic-link.js';
import { useSharedStores } from '../support/shared-stores.js';
import { readSession } from '../session/database-harness.js';

const stores = useSharedStores();
const db = {} as { pool: Pool };

beforeAll(async () => {
  const schema = await stores.schema();
  db.pool = stores.pool(schema, { max: 8 });
  await db.pool.query(`
    CREATE FUNCTION slow_spend() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(0.2); RETURN NULL; END $$;
    CREATE TRIGGER slow_spend AFTER DELETE ON verification_token FOR EACH ROW EXECUTE FUNCTION slow_spend();`);
}, 60_000);

describe('one magic link, opened at once from many browsers on two instances', () => {
  for (const strategy of ['database', 'jwt'] as const) {
    it(`${strategy} sessions: exactly one browser is signed in, and at most one session row exists`, async () => {
      const outbox = memoryOutbox();
      const instance = () => testAuth({ adapter: PostgresAdapter(db.pool), providers: [outbox.provider], session: { strategy } });
      const [a, b] = [instance(), instance()];
      const email = `race-${randomBytes(4).toString('hex')}@attack.test`;
      await requestLink(a, email);
      const link = outbox.linkFor(email);
      const browsers = [a, b, a, b, a, b].map((t) => ({ t, client: t.newClient() }));
      const answers = await Promise.all(browsers.map(({ client }) => client.get(link)));
      const signedIn = answers.filter((res) => res.location?.pathname === '/after');
      expect(signedIn, answers.map((r) => r.location?.href).join(', ')).toHaveLength(1);
      for (const res of answers) if (res.location?.pathname !== '/after') expect(res.location?.searchParams.get('error')).toBe('Verification');
      const sessions = await Promise.all(browsers.map(async ({ client }) => (await readSession(client)).body?.user?.email ?? null));
      expect(sessions.filter((s) => s === email)).toHaveLength(1);
      const { rows } = await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM sessions s JOIN users u ON u.id = s.user_id WHERE u.email = $1', [email]);
      expect(rows[0]!.n).toBe(strategy === 'database' ? 1 : 0);
    });
  }
});
