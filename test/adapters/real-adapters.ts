// The real Auth.js adapters the conformance suite drives, each on a real store of its own for this run: PostgreSQL
// (DATABASE_URL, default 127.0.0.1:5432 db `test` user `postgres`; a schema per adapter, dropped after) and Redis
// (REDIS_URL, default 127.0.0.1:6379; keys under a prefix of this run, deleted after), or unstorage's memory driver.
// Prisma's client is generated on first use from prisma/schema.prisma into prisma/.client (gitignored).
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { PrismaAdapter } from '@auth/prisma-adapter';
import { PrismaPg } from '@prisma/adapter-pg';
import AuthjsPgAdapter from '@auth/pg-adapter';
import { DrizzleAdapter } from '@auth/drizzle-adapter';
import { KyselyAdapter } from '@auth/kysely-adapter';
import { UnstorageAdapter } from '@auth/unstorage-adapter';
import { drizzle } from 'drizzle-orm/node-postgres';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { createStorage } from 'unstorage';
import memoryDriver from 'unstorage/drivers/memory';
import redisDriver from 'unstorage/drivers/redis';
import type { Adapter } from '../../src/core/adapter.js';
import { authjsSchema } from '../support/authjs-pg-schema.js';

export const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** One adapter under test, on its own store. */
export interface RealAdapter {
  adapter: Adapter;
  /** The store's user ids are typed (uuid): an id that is not the store's own is refused by the store. */
  typedIds: boolean;
  close(): Promise<void>;
}

export interface AdapterCase {
  /** The row of the table in docs/adapters.md. */
  name: string;
  /** The npm packages it is, as installed. */
  packages: string[];
  make(): Promise<RealAdapter>;
}

const run = () => `${process.pid}_${randomBytes(4).toString('hex')}`;

/** A schema of its own on the server, `statements` run in it; dropped on close. */
async function schemaOf(statements: readonly string[]): Promise<{ pool: pg.Pool; schema: string; drop(): Promise<void> }> {
  const schema = `authchart_conf_${run()}`;
  const admin = new pg.Pool({ connectionString: DATABASE_URL, max: 1 });
  await admin.query(`CREATE SCHEMA ${schema}`);
  const pool = new pg.Pool({ connectionString: DATABASE_URL, options: `-c search_path=${schema}`, max: 6 });
  for (const s of statements) await pool.query(s);
  return {
    pool,
    schema,
    async drop() {
      await pool.end();
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    },
  };
}

// The tables @auth/drizzle-adapter's default pg schema declares (text ids it generates as UUIDs), passkeys included.
const drizzleSchema = [
  `CREATE TABLE "user" (id TEXT PRIMARY KEY, name TEXT, email TEXT UNIQUE, "emailVerified" TIMESTAMP, image TEXT)`,
  `CREATE TABLE account ("userId" TEXT NOT NULL REFERENCES "user"(id) ON DELETE CASCADE, type TEXT NOT NULL, provider TEXT NOT NULL,
    "providerAccountId" TEXT NOT NULL, refresh_token TEXT, access_token TEXT, expires_at INTEGER, token_type TEXT, scope TEXT,
    id_token TEXT, session_state TEXT, PRIMARY KEY (provider, "providerAccountId"))`,
  `CREATE TABLE session ("sessionToken" TEXT PRIMARY KEY, "userId" TEXT NOT NULL REFERENCES "user"(id) ON DELETE CASCADE, expires TIMESTAMP NOT NULL)`,
  `CREATE TABLE "verificationToken" (identifier TEXT NOT NULL, token TEXT NOT NULL, expires TIMESTAMP NOT NULL, PRIMARY KEY (identifier, token))`,
  `CREATE TABLE authenticator ("credentialID" TEXT NOT NULL UNIQUE, "userId" TEXT NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
    "providerAccountId" TEXT NOT NULL, "credentialPublicKey" TEXT NOT NULL, counter INTEGER NOT NULL, "credentialDeviceType" TEXT NOT NULL,
    "credentialBackedUp" BOOLEAN NOT NULL, transports TEXT, PRIMARY KEY ("userId", "credentialID"))`,
];

// The tables @auth/kysely-adapter queries, with uuid ids (it makes its user ids with crypto.randomUUID()).
const kyselySchema = [
  `CREATE TABLE "User" (id UUID PRIMARY KEY, name TEXT, email TEXT UNIQUE, "emailVerified" TIMESTAMPTZ, image TEXT)`,
  `CREATE TABLE "Account" (id UUID PRIMARY KEY DEFAULT gen_random_uuid(), "userId" UUID NOT NULL REFERENCES "User"(id) ON DELETE CASCADE,
    type TEXT NOT NULL, provider TEXT NOT NULL, "providerAccountId" TEXT NOT NULL, refresh_token TEXT, access_token TEXT,
    expires_at BIGINT, token_type TEXT, scope TEXT, id_token TEXT, session_state TEXT, UNIQUE (provider, "providerAccountId"))`,
  `CREATE TABLE "Session" (id UUID PRIMARY KEY DEFAULT gen_random_uuid(), "sessionToken" TEXT NOT NULL UNIQUE,
    "userId" UUID NOT NULL REFERENCES "User"(id) ON DELETE CASCADE, expires TIMESTAMPTZ NOT NULL)`,
  `CREATE TABLE "VerificationToken" (identifier TEXT NOT NULL, token TEXT NOT NULL UNIQUE, expires TIMESTAMPTZ NOT NULL, PRIMARY KEY (identifier, token))`,
];

// The tables of prisma/schema.prisma (Prisma 7 generates the client without its engines; its migrations would need
// the schema engine binary, which is downloaded, so the tables are made here).
const prismaSchema = [
  `CREATE TABLE "User" (id TEXT PRIMARY KEY, name TEXT, email TEXT UNIQUE, "emailVerified" TIMESTAMP(3), image TEXT)`,
  `CREATE TABLE "Account" ("userId" TEXT NOT NULL REFERENCES "User"(id) ON DELETE CASCADE, type TEXT NOT NULL, provider TEXT NOT NULL,
    "providerAccountId" TEXT NOT NULL, refresh_token TEXT, access_token TEXT, expires_at INTEGER, token_type TEXT, scope TEXT,
    id_token TEXT, session_state TEXT, PRIMARY KEY (provider, "providerAccountId"))`,
  `CREATE TABLE "Session" ("sessionToken" TEXT NOT NULL UNIQUE, "userId" TEXT NOT NULL REFERENCES "User"(id) ON DELETE CASCADE, expires TIMESTAMP(3) NOT NULL)`,
  `CREATE TABLE "VerificationToken" (identifier TEXT NOT NULL, token TEXT NOT NULL, expires TIMESTAMP(3) NOT NULL, PRIMARY KEY (identifier, token))`,
  `CREATE TABLE "Authenticator" ("credentialID" TEXT NOT NULL UNIQUE, "userId" TEXT NOT NULL REFERENCES "User"(id) ON DELETE CASCADE,
    "providerAccountId" TEXT NOT NULL, "credentialPublicKey" TEXT NOT NULL, counter INTEGER NOT NULL, "credentialDeviceType" TEXT NOT NULL,
    "credentialBackedUp" BOOLEAN NOT NULL, transports TEXT, PRIMARY KEY ("userId", "credentialID"))`,
];

type PrismaClientClass = new (options: { adapter: PrismaPg }) => { $disconnect(): Promise<void> };
let prismaClient: Promise<PrismaClientClass> | undefined;

/**
 * Prisma's generated client class, made once per run by `prisma generate`. Generating needs no engine: the schema
 * engine's path is set to a file that is never run, which keeps the CLI from fetching that binary.
 */
function generatedPrismaClient(): Promise<PrismaClientClass> {
  prismaClient ??= (async () => {
    const bin = new URL('../../node_modules/.bin/prisma', import.meta.url).pathname;
    const schema = new URL('./prisma/schema.prisma', import.meta.url).pathname;
    await promisify(execFile)(bin, ['generate', '--schema', schema], { env: { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: '/bin/false', PRISMA_HIDE_UPDATE_MESSAGE: '1' } });
    // A path in a variable: the client exists only once generated, so the type check must not look for it.
    const entry = new URL('./prisma/.client/client.ts', import.meta.url).href;
    return ((await import(entry)) as { PrismaClient: PrismaClientClass }).PrismaClient;
  })();
  return prismaClient;
}

export const adapterCases: AdapterCase[] = [
  {
    name: '@auth/pg-adapter (PostgreSQL)',
    packages: ['@auth/pg-adapter', 'pg'],
    async make() {
      const s = await schemaOf(authjsSchema);
      return { adapter: AuthjsPgAdapter(s.pool), typedIds: true, close: s.drop };
    },
  },
  {
    name: '@auth/drizzle-adapter (drizzle-orm, node-postgres)',
    packages: ['@auth/drizzle-adapter', 'drizzle-orm', 'pg'],
    async make() {
      const s = await schemaOf(drizzleSchema);
      return { adapter: DrizzleAdapter(drizzle(s.pool)) as Adapter, typedIds: false, close: s.drop };
    },
  },
  {
    name: '@auth/kysely-adapter (PostgreSQL, uuid ids)',
    packages: ['@auth/kysely-adapter', 'kysely', 'pg'],
    async make() {
      const s = await schemaOf(kyselySchema);
      const db = new Kysely<never>({ dialect: new PostgresDialect({ pool: s.pool }) });
      // Kysely ends the pool it was given when destroyed; the schema is dropped by a pool of its own.
      return { adapter: KyselyAdapter(db as never) as Adapter, typedIds: true, close: s.drop };
    },
  },
  {
    name: '@auth/prisma-adapter (Prisma 7, adapter-pg)',
    packages: ['@auth/prisma-adapter', 'prisma', '@prisma/client', '@prisma/adapter-pg'],
    async make() {
      const PrismaClient = await generatedPrismaClient();
      const s = await schemaOf(prismaSchema);
      const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: DATABASE_URL, max: 6 }, { schema: s.schema }) });
      return {
        adapter: PrismaAdapter(prisma as never) as Adapter,
        typedIds: false,
        async close() {
          await prisma.$disconnect();
          await s.drop();
        },
      };
    },
  },
  {
    name: '@auth/unstorage-adapter (memory driver)',
    packages: ['@auth/unstorage-adapter', 'unstorage'],
    async make() {
      const storage = createStorage({ driver: memoryDriver() });
      return { adapter: UnstorageAdapter(storage) as Adapter, typedIds: false, close: async () => storage.dispose() };
    },
  },
  {
    name: '@auth/unstorage-adapter (Redis driver)',
    packages: ['@auth/unstorage-adapter', 'unstorage', 'ioredis'],
    async make() {
      const base = `authchart:conformance:${run()}`;
      const storage = createStorage({ driver: redisDriver({ url: REDIS_URL, base }) });
      return {
        adapter: UnstorageAdapter(storage) as Adapter,
        typedIds: false,
        async close() {
          await storage.clear();
          await storage.dispose();
        },
      };
    },
  },
];
