// vitest globalSetup: before any test runs, the services the suite needs must be there, and the sub-projects whose
// tests run from their own node_modules must be installed. A missing service ends the run at once with one line that
// names it and the command that starts it; a sub-project not yet installed is installed (npm ci, as its lock pins it).
// No test skips because its environment is missing: it fails here instead.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import { Redis } from 'ioredis';
import { CHROMIUM_PATH } from '../e2e/peers/browser.js';
import { testServices } from './defaults.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CHROMIUM = CHROMIUM_PATH;
/** Sub-projects with their own lock, and a file that their install leaves. */
const SUBPROJECTS = [
  ['runtimes', 'node_modules/.bin/bun'],
  ['bench', 'node_modules/@auth/core/index.js'],
  ['browser-clients', 'node_modules/.package-lock.json'],
  ['examples/nitro-v2', 'node_modules/.package-lock.json'],
  ['examples/nitro-v3', 'node_modules/.package-lock.json'],
] as const;

/** A missing prerequisite: its message is the whole report (one line, no stack). */
class Missing extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'Missing';
    this.stack = message;
  }
}

function pgStartCommand(): string {
  const versions = existsSync('/etc/postgresql') ? readdirSync('/etc/postgresql') : [];
  return versions.length > 0 ? `pg_ctlcluster ${versions[0]} main start` : 'service postgresql start';
}

const reason = (error: unknown) => (error as { code?: string }).code ?? (error as Error).message.split('\n')[0];

/** One line naming the first service that does not answer, or null when all do. */
export async function missingService(env: NodeJS.ProcessEnv): Promise<string | null> {
  const { DATABASE_URL, REDIS_URL } = testServices(env);
  const client = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
  } catch (error) {
    return `PostgreSQL is not reachable at ${DATABASE_URL} (${reason(error)}): start it with \`${pgStartCommand()}\`, or set DATABASE_URL.`;
  } finally {
    await client.end().catch(() => {});
  }
  const redis = new Redis(REDIS_URL, { lazyConnect: true, connectTimeout: 3000, maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false });
  redis.on('error', () => {});
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    return `Redis is not reachable at ${REDIS_URL} (${reason(error)}): start it with \`redis-server --daemonize yes\`, or set REDIS_URL.`;
  } finally {
    redis.disconnect();
  }
  if (!existsSync(CHROMIUM)) return `Chromium is missing at ${CHROMIUM} (the browser tests drive it): install it with \`apt-get install -y chromium\`.`;
  return null;
}

async function installSubprojects(): Promise<void> {
  for (const [dir, marker] of SUBPROJECTS) {
    if (existsSync(join(ROOT, dir, marker))) continue;
    process.stdout.write(`test setup: installing ${dir} (npm --prefix ${dir} ci)\n`);
    try {
      await promisify(execFile)('npm', ['ci', '--no-audit', '--no-fund', '--prefer-offline'], { cwd: join(ROOT, dir), maxBuffer: 64 * 1024 * 1024 });
    } catch (error) {
      throw new Missing(`Could not install ${dir}: run \`npm --prefix ${dir} ci\` (${reason(error)}).`);
    }
  }
}

export default async function setup(): Promise<void> {
  const missing = await missingService(process.env);
  if (missing) throw new Missing(missing);
  await installSubprojects();
}
