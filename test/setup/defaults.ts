// Where the test suite finds its services when no variable names them: the local PostgreSQL and Redis at their
// documented defaults (README.md, "Set-up"). vitest.config.ts hands these to every test file as process.env, and
// test/setup/environment.ts checks each is there before any test runs.

/** PostgreSQL: user postgres (trust), database test, on the local default port. */
export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';
/** Redis on the local default port. */
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

/** The environment the tests run with: the given variables, else the defaults. */
export function testServices(env: NodeJS.ProcessEnv): { DATABASE_URL: string; REDIS_URL: string } {
  return { DATABASE_URL: env.DATABASE_URL || DEFAULT_DATABASE_URL, REDIS_URL: env.REDIS_URL || DEFAULT_REDIS_URL };
}
