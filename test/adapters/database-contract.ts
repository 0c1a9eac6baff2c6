// Checks of the database layer under the adapter, shared by PGlite and the PostgreSQL server: one JS type per
// column type whatever the driver, and a migrate() that is idempotent and upgrades. Schema experiments run in a
// transaction that is rolled back, so they leave the shared database as it was.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toQueryable, type Database, type Queryable } from '../../src/adapters/postgres/client.js';
import { migrate, migrations, schemaVersion, versionTable, type Migration } from '../../src/adapters/postgres/schema.js';

class Rollback extends Error {}
// The newest schema version (the list may skip the numbers of other branches' migrations until they are merged).
const LATEST = migrations.at(-1)!.version;

/** Runs `fn` in a transaction and always rolls it back. */
async function inRolledBack(q: Queryable, fn: (tx: Queryable) => Promise<void>): Promise<void> {
  await expect(
    q.transaction(async (tx) => {
      await fn(tx);
      throw new Rollback();
    }),
  ).rejects.toBeInstanceOf(Rollback);
}

/** A next version that a later authchart might ship: it must apply on top of today's without touching their data. */
const v2: Migration = {
  version: LATEST + 1,
  description: 'test: user locale',
  statements: [`ALTER TABLE users ADD COLUMN locale TEXT`, `CREATE INDEX users_locale_idx ON users (locale)`],
};

export function runDatabaseChecks(
  name: string,
  makeDatabase: () => Promise<{ db: Database; cleanup: () => Promise<void> }>,
): void {
  describe(`Database layer: ${name}`, () => {
    let q: Queryable;
    let cleanup: (() => Promise<void>) | undefined;

    beforeAll(async () => {
      const made = await makeDatabase();
      q = toQueryable(made.db);
      cleanup = made.cleanup;
      await migrate(q);
    });
    afterAll(async () => {
      await cleanup?.();
    });

    it('normalizes BIGINT to number, BYTEA to Buffer, timestamps to Date', async () => {
      const { rows } = await q.query(
        `SELECT 4294967295::int8 AS big, '\\x00ff10'::bytea AS bin, '2026-01-02T03:04:05.678Z'::timestamptz AS ts,
                '2026-01-02 03:04:05'::timestamp AS local, NULL::int8 AS nothing, 7::int4 AS small, 'x'::text AS s`,
      );
      const row = rows[0]!;
      expect(row.big).toBe(4294967295);
      expect(Buffer.isBuffer(row.bin)).toBe(true);
      expect([...(row.bin as Buffer)]).toEqual([0, 255, 16]);
      expect(row.ts).toEqual(new Date('2026-01-02T03:04:05.678Z'));
      expect(row.local).toBeInstanceOf(Date);
      expect(row.nothing).toBeNull();
      expect(row.small).toBe(7);
      expect(row.s).toBe('x');
    });

    it('reports rowCount for writes without RETURNING', async () => {
      await inRolledBack(q, async (tx) => {
        await tx.query(`CREATE TEMP TABLE rc_probe (n int)`);
        const ins = await tx.query(`INSERT INTO rc_probe VALUES (1), (2), (3)`);
        expect(ins.rowCount).toBe(3);
        const del = await tx.query(`DELETE FROM rc_probe WHERE n > $1`, [1]);
        expect(del.rowCount).toBe(2);
      });
    });

    it('migrate() is idempotent', async () => {
      expect(await schemaVersion(q)).toBe(LATEST);
      expect(await migrate(q)).toEqual([]);
      expect(await migrate(q)).toEqual([]);
      const { rows } = await q.query<{ version: number }>(`SELECT version FROM ${versionTable} ORDER BY version`);
      expect(rows.map((r) => r.version)).toEqual(migrations.map((m) => m.version));
    });

    it('migrate() creates every table in an empty schema', async () => {
      await inRolledBack(q, async (tx) => {
        await tx.query(`CREATE SCHEMA authchart_fresh_probe`);
        await tx.query(`SET LOCAL search_path TO authchart_fresh_probe`);
        expect(await schemaVersion(tx)).toBe(0);
        expect(await migrate(tx)).toEqual(migrations.map((m) => m.version));
        const { rows } = await tx.query<{ table_name: string }>(
          `SELECT table_name FROM information_schema.tables WHERE table_schema = 'authchart_fresh_probe' ORDER BY 1`,
        );
        expect(rows.map((r) => r.table_name)).toEqual(
          ['accounts', 'activity', 'authchart_throttle', 'authenticators', 'factor_challenges', 'factors', 'flow_store', 'logout_token_jti', 'memberships', 'organization_domains', 'organization_invitations', 'organizations', 'passwords', 'provider_sessions', versionTable, 'sessions', 'sessions_valid_after', 'sso_connections', 'token_refresh', 'users', 'verification_token', 'webhook_endpoint_health', 'webhook_outbox'].sort(),
        );
      });
    });

    it('migrate() upgrades v1 to a newer version, keeping data, and only once', async () => {
      await inRolledBack(q, async (tx) => {
        await tx.query(`INSERT INTO users (id, email) VALUES ('upgrade-probe', 'upgrade-probe@example.test')`);
        expect(await migrate(tx, [...migrations, v2])).toEqual([v2.version]);
        expect(await migrate(tx, [...migrations, v2])).toEqual([]);
        expect(await schemaVersion(tx)).toBe(v2.version);
        const { rows } = await tx.query(`SELECT email, locale FROM users WHERE id = 'upgrade-probe'`);
        expect(rows).toEqual([{ email: 'upgrade-probe@example.test', locale: null }]);
      });
      expect(await schemaVersion(q)).toBe(LATEST);
    });

    it('migrate() refuses a database newer than the code, and a gap in versions', async () => {
      await inRolledBack(q, async (tx) => {
        await migrate(tx, [...migrations, v2]);
        await expect(migrate(tx)).rejects.toThrow(/newer than this authchart/);
      });
      await expect(migrate(q, [v2])).rejects.toThrow(/expected 1/);
    });

    it('a failing migration leaves the database at its previous version', async () => {
      const broken: Migration = { version: LATEST + 1, description: 'broken', statements: [`ALTER TABLE users ADD COLUMN x INT`, `SELEC 1`] };
      await expect(migrate(q, [...migrations, broken])).rejects.toBeDefined();
      expect(await schemaVersion(q)).toBe(LATEST);
      const { rows } = await q.query(
        `SELECT column_name FROM information_schema.columns WHERE table_name = 'users' AND column_name = 'x'
           AND table_schema = current_schema()`,
      );
      expect(rows).toEqual([]);
    });
  });
}
