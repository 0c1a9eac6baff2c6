// `npm run instances`: several demo instances, each its own process, sharing what a deployment of many instances
// shares: one AUTH_SECRET, one PostgreSQL (users, accounts, sessions, magic-link tokens, passkeys), one Redis (the
// sign-in throttle) and one demo IdP. Each answers on its own port; a sign-in begun on one finishes on any other.
// INSTANCES (default 2), PORT (the first, default 3000), DATABASE_URL, DATABASE_SCHEMA (default authchart_instances),
// REDIS_URL, AUTH_SECRET and AUTH_URL (one public origin in front of them all) may be set.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { demoIdpClientSecret, startDevIdp, type DevIdp } from '../examples/demo/dev-idp.js';
import { listening } from '../test/e2e/peers/net.js';

const SERVER = fileURLToPath(new URL('../examples/demo/server.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface InstancesOptions {
  /** How many instances (default 2). */
  count?: number;
  /** The first instance's port; the others follow it (default 3000). The IdP takes the port after the last. */
  port?: number;
  /** Each instance's port, instead of consecutive ones (tests pick free ports). */
  ports?: number[];
  /** The IdP's port (default: the one after the last instance). */
  idpPort?: number;
  databaseUrl?: string;
  redisUrl?: string;
  /** Shared by every instance (default: random, printed). */
  secret?: string;
  /** The PostgreSQL schema the instances use (created when missing; default `public`, i.e. the URL's own). */
  schema?: string;
  /** Prefix of the throttle's keys in Redis (default the library's). */
  redisPrefix?: string;
  /** Extra environment for every instance. */
  env?: Record<string, string>;
  /** Each line an instance prints, with its index (default: to this console, prefixed). */
  onLine?: (index: number, line: string) => void;
}

export interface RunningInstances {
  origins: string[];
  secret: string;
  databaseUrl: string;
  redisUrl: string;
  idp: DevIdp;
  /** Whether every instance process is still running. */
  alive(): boolean;
  stop(): Promise<void>;
}

/** The URL with `search_path` set to `schema` for every connection (pg reads `options` from the URL). */
function withSchema(url: string, schema: string | undefined): string {
  if (!schema) return url;
  const u = new URL(url);
  u.searchParams.set('options', `-c search_path=${schema}`);
  return u.toString();
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/**
 * Starts the IdP, then every instance; resolves when all answer. Refuses with a clear message when PostgreSQL or
 * Redis does not answer.
 *
 * @example
 * const run = await startInstances({ count: 2 }); console.log(run.origins); await run.stop();
 */
export async function startInstances(options: InstancesOptions = {}): Promise<RunningInstances> {
  const count = options.ports?.length ?? options.count ?? 2;
  const first = options.port ?? 3000;
  const ports = options.ports ?? Array.from({ length: count }, (_, i) => first + i);
  const databaseUrl = options.databaseUrl ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const redisUrl = options.redisUrl ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const secret = options.secret ?? process.env.AUTH_SECRET ?? randomBytes(32).toString('base64url');
  if (!(await listening(databaseUrl, 5432))) throw new Error(`PostgreSQL does not answer at ${new URL(databaseUrl).host}: start it or set DATABASE_URL.`);
  if (!(await listening(redisUrl, 6379))) throw new Error(`Redis does not answer at ${new URL(redisUrl).host}: start it or set REDIS_URL.`);

  if (options.schema) {
    const { default: pg } = await import('pg');
    const admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    try {
      await admin.query(`CREATE SCHEMA IF NOT EXISTS ${options.schema.replace(/[^a-z0-9_]/gi, '')}`);
    } finally {
      await admin.end();
    }
  }

  const origins = ports.map((port) => `http://localhost:${port}`);
  const idpPort = options.idpPort ?? Math.max(...ports) + 1;
  // Each instance's own callback, and the public one when they stand behind one origin (AUTH_URL, a load balancer).
  const publicUrl = options.env?.AUTH_URL ?? process.env.AUTH_URL;
  const callbacks = [...origins.map((o) => `${o}/auth/callback/demo-idp`), ...(publicUrl ? [`${publicUrl.replace(/\/$/, '')}/callback/demo-idp`] : [])];
  const idp = await startDevIdp(idpPort, callbacks, demoIdpClientSecret({ AUTH_SECRET: secret }));
  const children: ChildProcess[] = [];
  const onLine = options.onLine ?? ((index: number, line: string) => console.log(`[${index + 1}] ${line}`));
  try {
    await Promise.all(
      ports.map(
        (port, index) =>
          new Promise<void>((resolve, reject) => {
            const env: NodeJS.ProcessEnv = {
              ...process.env,
              ...options.env,
              PORT: String(port),
              AUTH_SECRET: secret,
              DATABASE_URL: withSchema(databaseUrl, options.schema),
              REDIS_URL: redisUrl,
              DEMO_IDP_URL: idp.issuer,
              ...(options.redisPrefix ? { DEMO_REDIS_PREFIX: options.redisPrefix } : {}),
            };
            const child = spawn(process.execPath, ['--import', 'tsx', SERVER], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
            children.push(child);
            const early = (code: number | null) => reject(new Error(`instance ${index + 1} (port ${port}) exited with ${code} before it answered`));
            child.once('exit', early);
            for (const stream of [child.stdout!, child.stderr!]) {
              createInterface({ input: stream }).on('line', (line) => {
                onLine(index, line);
                if (line.startsWith('authchart demo on ')) {
                  child.off('exit', early);
                  resolve();
                }
              });
            }
          }),
      ),
    );
  } catch (err) {
    await Promise.all(children.map(stopChild));
    await idp.close();
    throw err;
  }
  return {
    origins,
    secret,
    databaseUrl,
    redisUrl,
    idp,
    alive: () => children.every((c) => c.exitCode === null && c.signalCode === null),
    async stop() {
      await Promise.all(children.map(stopChild));
      await idp.close();
    },
  };
}

async function main(): Promise<void> {
  const count = Number(process.env.INSTANCES ?? 2);
  // Their own schema, so the instances' tables never mix with what else the database holds.
  const schema = process.env.DATABASE_SCHEMA ?? 'authchart_instances';
  const run = await startInstances({ count, port: Number(process.env.PORT ?? 3000), schema });
  console.log(`\n${count} authchart demo instances: ${run.origins.join(', ')}`);
  console.log(`  Shared: AUTH_SECRET${process.env.AUTH_SECRET ? ' (yours)' : ` (random: ${run.secret})`}, PostgreSQL at ${new URL(run.databaseUrl).host} (schema ${schema}), Redis at ${new URL(run.redisUrl).host} (throttle), the demo IdP at ${run.idp.issuer}.`);
  console.log('  A sign-in begun on one finishes on any other; the throttle counts across all. Ctrl-C stops them all.');
  const stop = async () => {
    await run.stop();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  });
}
