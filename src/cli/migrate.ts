// `authchart migrate`: creates or upgrades authchart's PostgreSQL tables (the migrations of adapters/postgres),
// or with --print shows their SQL without connecting.
import { migrate, migrations, versionTable } from '../adapters/postgres/schema.js';

/** The SQL of every migration, in order, as a script a person can read or run by hand. */
export function migrationSql(): string {
  const lines = [
    `-- authchart's PostgreSQL schema, ${migrations.length} migrations. \`authchart migrate\` applies the pending ones in`,
    `-- one transaction and records each in ${versionTable}.`,
    '',
  ];
  for (const m of migrations) {
    lines.push(`-- ${m.version}: ${m.description}`);
    for (const statement of m.statements) lines.push(`${statement.trim()};`, '');
  }
  return lines.join('\n');
}

/** Applies the pending migrations to the database at `url` (through `pg`, the adapter's optional peer). */
export async function applyMigrations(url: string): Promise<number[]> {
  type PoolOptions = { connectionString: string; connectionTimeoutMillis?: number };
  let pg: { default?: { Pool: new (options: PoolOptions) => PoolLike }; Pool?: new (options: PoolOptions) => PoolLike };
  try {
    pg = (await import('pg' as string)) as typeof pg;
  } catch {
    throw new Error('`authchart migrate` connects with the `pg` package: npm install pg.');
  }
  const Pool = (pg.default ?? pg).Pool!;
  // A server that cannot be reached fails the command instead of hanging it; migrations themselves may take long.
  const pool = new Pool({ connectionString: url, connectionTimeoutMillis: 10_000 });
  try {
    return await migrate(pool as never);
  } finally {
    await pool.end();
  }
}

interface PoolLike {
  end(): Promise<void>;
}
