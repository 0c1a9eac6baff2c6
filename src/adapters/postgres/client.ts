// One small query interface over a `pg` Pool/Client and an embedded PGlite, so the adapter's SQL runs on both,
// with the JS types of results made identical (pg and PGlite disagree on BIGINT and BYTEA).
// Neither driver is imported: both are optional peer dependencies, recognised by shape.

/** A result row with driver differences removed: BIGINT → number, BYTEA → Buffer, timestamps → Date. */
export type Row = Record<string, unknown>;

/** The query surface the PostgreSQL adapter needs. */
export interface Queryable {
  /** Runs one statement with `$1`-style parameters. */
  query<R extends Row = Row>(sql: string, params?: readonly unknown[]): Promise<{ rows: R[]; rowCount: number }>;
  /**
   * Runs `fn` inside a transaction: committed when it resolves, rolled back when it throws. Inside an open
   * transaction this simply runs `fn` in it (nested calls join the outer transaction). On a PostgreSQL server,
   * `options.timeout` (ms) bounds each statement, each lock wait and each pause between statements of the
   * transaction: past it the server cancels the work itself (see {@link transactionTimeouts}).
   */
  transaction<T>(fn: (tx: Queryable) => Promise<T>, options?: TransactionOptions): Promise<T>;
  readonly [queryableBrand]: true;
}

const queryableBrand = Symbol.for('authchart.queryable');

/** Options of {@link Queryable.transaction}. */
export interface TransactionOptions {
  /** The caller's deadline, in ms: the server stops the transaction's work past it. */
  timeout?: number;
}

/**
 * The statements that give one transaction the server-side limits of its deadline: `statement_timeout` (a slow
 * statement is cancelled), `lock_timeout` (a lock wait gives up) and `idle_in_transaction_session_timeout` (a
 * transaction its client stopped driving is ended, its locks released). `SET LOCAL`: they end with the transaction,
 * and the connection goes back to the pool as it came. Empty without a usable timeout.
 *
 * @example transactionTimeouts(5000) // 'SET LOCAL statement_timeout = 5000; ...'
 */
export function transactionTimeouts(timeout: number | undefined): string {
  if (timeout === undefined || !Number.isFinite(timeout) || timeout <= 0) return '';
  const ms = Math.ceil(timeout);
  return ['statement_timeout', 'lock_timeout', 'idle_in_transaction_session_timeout'].map((name) => `SET LOCAL ${name} = ${ms}`).join('; ');
}

interface FieldLike {
  name: string;
  dataTypeID: number;
}
interface DriverResult {
  rows: Row[];
  fields?: readonly FieldLike[];
  rowCount?: number | null;
  affectedRows?: number;
}

/** What authchart uses of a `pg` PoolClient or Client. */
export interface PgClientLike {
  query(text: string, values?: unknown[]): Promise<unknown>;
  release?(err?: Error | boolean): void;
  on?(event: 'error', listener: (err: Error) => void): unknown;
  removeListener?(event: 'error', listener: (err: Error) => void): unknown;
  listenerCount?(event: string): number;
}

/** What authchart uses of a `pg` Pool. */
export interface PgPoolLike extends PgClientLike {
  connect(): Promise<PgClientLike>;
  totalCount: number;
}

/** What authchart uses of a PGlite instance (or of one of its transactions). */
export interface PGliteLike {
  query(query: string, params?: unknown[]): Promise<unknown>;
  exec(query: string): Promise<unknown>;
  transaction?<T>(callback: (tx: PGliteLike) => Promise<T>): Promise<T>;
}

/** Anything `PostgresAdapter` and `migrate` accept as a database. */
export type Database = Queryable | PgPoolLike | PgClientLike | PGliteLike;

// PostgreSQL type OIDs of the columns whose JS type differs between drivers.
const INT8 = 20;
const BYTEA = 17;
const TIMESTAMP = 1114;
const TIMESTAMPTZ = 1184;
const DATE = 1082;

function normalizeValue(oid: number, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (oid) {
    case INT8:
      // pg returns a string to avoid losing precision; our BIGINTs (expiry seconds, counters) fit in 2^53.
      return typeof value === 'number' ? value : Number(value);
    case BYTEA:
      return Buffer.isBuffer(value)
        ? value
        : value instanceof Uint8Array
          ? Buffer.from(value.buffer, value.byteOffset, value.byteLength)
          : value;
    case TIMESTAMP:
    case TIMESTAMPTZ:
    case DATE:
      return value instanceof Date ? value : new Date(String(value));
    default:
      return value;
  }
}

function normalize(result: DriverResult): { rows: Row[]; rowCount: number } {
  const fields = (result.fields ?? []).filter((f) => [INT8, BYTEA, TIMESTAMP, TIMESTAMPTZ, DATE].includes(f.dataTypeID));
  const rows =
    fields.length === 0
      ? result.rows
      : result.rows.map((row) => {
          const out: Row = { ...row };
          for (const f of fields) out[f.name] = normalizeValue(f.dataTypeID, row[f.name]);
          return out;
        });
  const rowCount = result.rowCount ?? result.affectedRows ?? rows.length;
  return { rows, rowCount };
}

function make(
  run: (sql: string, params: unknown[]) => Promise<unknown>,
  transaction: Queryable['transaction'] | undefined,
): Queryable {
  const q: Queryable = {
    [queryableBrand]: true,
    async query<R extends Row = Row>(sql: string, params: readonly unknown[] = []) {
      const result = normalize((await run(sql, [...params])) as DriverResult);
      return result as { rows: R[]; rowCount: number };
    },
    transaction: transaction ?? ((fn) => fn(q)),
  };
  return q;
}

function isQueryable(db: unknown): db is Queryable {
  return typeof db === 'object' && db !== null && (db as Queryable)[queryableBrand] === true;
}

function isPGlite(db: object): db is PGliteLike {
  return typeof (db as PGliteLike).exec === 'function' && typeof (db as PGliteLike).query === 'function';
}

function isPgPool(db: object): db is PgPoolLike {
  return typeof (db as PgPoolLike).connect === 'function' && typeof (db as PgPoolLike).totalCount === 'number';
}

// pg emits 'error' on a Pool when an idle connection dies (server restart, network cut) and on a Client whose
// connection drops. With no listener Node turns that into an uncaught exception that kills the process; the pool
// itself recovers on the next query, which then fails or succeeds on its own. So listen, unless the owner does.
function guardErrorEvents(db: PgClientLike): void {
  if (typeof db.on !== 'function') return;
  if (typeof db.listenerCount === 'function' && db.listenerCount('error') > 0) return;
  db.on('error', () => {});
}

// BEGIN/COMMIT on one connection. Reports whether the connection is still usable afterwards.
async function inTransaction<T>(
  client: PgClientLike,
  fn: (tx: Queryable) => Promise<T>,
  onBroken: (err: Error) => void,
  options: TransactionOptions = {},
): Promise<T> {
  const tx = make((sql, params) => client.query(sql, params), undefined);
  const limits = transactionTimeouts(options.timeout);
  try {
    // One round trip: BEGIN and the limits go as one simple-protocol query.
    await client.query(limits ? `BEGIN; ${limits}` : 'BEGIN');
  } catch (e) {
    onBroken(e as Error);
    throw e;
  }
  try {
    const result = await fn(tx);
    await client.query('COMMIT');
    return result;
  } catch (e) {
    await client.query('ROLLBACK').catch((rollbackError: Error) => onBroken(rollbackError));
    throw e;
  }
}

/**
 * A `pg` Client or PoolClient already connected; transactions run on it with BEGIN/COMMIT. On one connection
 * a statement sent while a transaction is open would become part of it (and share its rollback), so every
 * call waits for the one before it.
 */
function fromPgClient(client: PgClientLike): Queryable {
  let last: Promise<unknown> = Promise.resolve();
  const inTurn = <T>(work: () => Promise<T>): Promise<T> => {
    const run = last.then(work, work);
    last = run.catch(() => {});
    return run;
  };
  return make(
    (sql, params) => inTurn(() => client.query(sql, params)),
    (fn, options) => inTurn(() => inTransaction(client, fn, () => {}, options)),
  );
}

/** A `pg` Pool: plain queries use any connection; a transaction holds one connection until it ends. */
function fromPgPool(pool: PgPoolLike): Queryable {
  return make(
    (sql, params) => pool.query(sql, params),
    async (fn, options) => {
      const client = await pool.connect();
      // The pool stops listening to a checked-out client; a connection dropping between two statements of
      // the transaction would otherwise be an uncaught 'error' event. The next statement reports it instead.
      const onError = (): void => {};
      client.on?.('error', onError);
      // A connection that could not roll back must not return to the pool in the middle of a transaction.
      let broken: Error | undefined;
      try {
        return await inTransaction(client, fn, (err) => (broken = err), options);
      } finally {
        client.removeListener?.('error', onError);
        client.release?.(broken);
      }
    },
  );
}

function fromPGlite(db: PGliteLike): Queryable {
  const transaction = db.transaction;
  if (typeof transaction !== 'function') return make((sql, params) => db.query(sql, params), undefined);
  return make(
    (sql, params) => db.query(sql, params),
    <T>(fn: (tx: Queryable) => Promise<T>) =>
      transaction.call(db, (tx) => fn(fromPGlite({ query: tx.query.bind(tx), exec: tx.exec.bind(tx) }))) as Promise<T>,
  );
}

/**
 * Adapts a `pg` Pool, a connected `pg` Client, or a PGlite instance to a {@link Queryable}.
 * A Pool is the right choice for a server: a single Client runs one call at a time, and a transaction on it
 * makes every other call wait until it ends.
 *
 * @example
 * const db = toQueryable(new pg.Pool({ connectionString: process.env.DATABASE_URL }));
 * const { rows } = await db.query('SELECT id FROM users WHERE email = $1', [email]);
 */
export function toQueryable(db: Database): Queryable {
  if (isQueryable(db)) return db;
  if (typeof db !== 'object' || db === null || typeof (db as { query?: unknown }).query !== 'function') {
    throw new TypeError('Expected a pg Pool or Client, or a PGlite instance');
  }
  if (isPGlite(db)) return fromPGlite(db);
  guardErrorEvents(db);
  if (isPgPool(db)) return fromPgPool(db);
  return fromPgClient(db);
}
