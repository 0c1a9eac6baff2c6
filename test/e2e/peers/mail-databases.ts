// E-mail tests on both databases: a real SMTP server, an embedded PGlite and a schema of the file's own on the
// PostgreSQL server, each behind a migrated PostgresAdapter. Registers its own hooks.
import { PGlite } from '@electric-sql/pglite';
import { afterAll, beforeAll } from 'vitest';
import { PostgresAdapter, type PostgresAdapterInstance } from '../../../src/adapters/postgres/index.js';
import { useSharedStores } from '../../support/shared-stores.js';
import { startSmtpServer, type SmtpHarness } from './smtp.js';

export interface MailDatabases {
  readonly smtp: SmtpHarness;
  /** The adapter on each database, by name. */
  readonly adapters: Record<'pglite' | 'postgres', PostgresAdapterInstance>;
}

/** Starts the SMTP server and both databases before the file's tests and stops them after. */
export function useMailDatabases(): MailDatabases {
  const stores = useSharedStores();
  let smtp: SmtpHarness | undefined;
  let pglite: PGlite | undefined;
  let adapters: MailDatabases['adapters'] | undefined;
  beforeAll(async () => {
    [pglite, smtp] = await Promise.all([PGlite.create(), startSmtpServer()]);
    const local = PostgresAdapter(pglite);
    await local.migrate();
    adapters = { pglite: local, postgres: PostgresAdapter(stores.pool(await stores.schema())) };
  }, 60_000);
  afterAll(async () => {
    await smtp?.stop();
    if (pglite && !pglite.closed) await pglite.close();
  });
  const ready = () => {
    if (!smtp || !adapters) throw new Error('The mail databases are not started: use them inside a test or hook.');
    return { smtp, adapters };
  };
  return {
    get smtp() { return ready().smtp; },
    get adapters() { return ready().adapters; },
  };
}
