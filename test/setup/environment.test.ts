// `npm test` on a machine without a service: the global setup ends the run within seconds, before any test file, with
// one line naming the service and the command that starts it. Pointed at a closed port through the variables (the
// machine's own PostgreSQL and Redis stay up for the other runs).
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEFAULT_DATABASE_URL, DEFAULT_REDIS_URL, testServices } from './defaults.js';
import { missingService } from './environment.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A port nothing listens on: bound, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('the test environment', () => {
  it('defaults to the local PostgreSQL and Redis when no variable is set, and keeps a given one', () => {
    expect(testServices({})).toEqual({ DATABASE_URL: DEFAULT_DATABASE_URL, REDIS_URL: DEFAULT_REDIS_URL });
    expect(testServices({ DATABASE_URL: 'postgres://u@h:1/d', REDIS_URL: 'redis://h:2' })).toEqual({ DATABASE_URL: 'postgres://u@h:1/d', REDIS_URL: 'redis://h:2' });
    // What this very run was given: the defaults unless the machine set a variable.
    expect(process.env.DATABASE_URL).toBe(testServices(process.env).DATABASE_URL);
  });

  it('finds every service of this machine', async () => {
    expect(await missingService(process.env)).toBeNull();
  });

  it('names Redis when it does not answer', async () => {
    const line = await missingService({ ...process.env, REDIS_URL: `redis://127.0.0.1:${await closedPort()}` });
    expect(line).toMatch(/^Redis is not reachable at redis:\/\/127\.0\.0\.1:\d+ \([^)]*\): start it with `redis-server --daemonize yes`/);
  });

  it('with PostgreSQL down, `npm test` fails in the first seconds with one line naming it and how to start it', async () => {
    const started = Date.now();
    const run = spawnSync('npm', ['test', '--', 'test/architecture'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, DATABASE_URL: `postgres://postgres@127.0.0.1:${await closedPort()}/test`, NO_COLOR: '1', FORCE_COLOR: '0' },
      timeout: 60_000,
    });
    const seconds = (Date.now() - started) / 1000;
    const output = run.stdout + run.stderr;
    expect(run.status, output).not.toBe(0);
    expect(seconds).toBeLessThan(15);
    const lines = output.split('\n').filter((l) => /PostgreSQL/.test(l));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/PostgreSQL is not reachable at postgres:\/\/postgres@127\.0\.0\.1:\d+\/test \(ECONNREFUSED\): start it with `(pg_ctlcluster \S+ main start|service postgresql start)`/);
    // No test ran.
    expect(output).not.toMatch(/Test Files .*passed/);
  }, 60_000);
});
