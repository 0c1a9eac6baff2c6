// The runtimes docs/passwords.md promises for password hashing, beside Node: Bun and Deno load @node-rs/argon2 (a
// Node-API module) and bcryptjs from the npm packages, hash with argon2id, verify, and read an imported bcrypt hash.
// Deno with exactly the permissions the docs name (--allow-read --allow-env --allow-ffi). Workers are not promised.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import bcrypt from 'bcryptjs';
import { describe, expect, it } from 'vitest';
import { argon2id } from '../../src/providers/password/index.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'runtimes/node_modules/.bin');
const installed = existsSync(join(BIN, 'bun')) && existsSync(join(BIN, 'deno'));
if (!installed && process.env.CI) throw new Error('The runtimes are not installed: npm --prefix runtimes ci');

const PASSWORD = 'pass phrase ünïcödé 🔑';
const PROBE = 'test/runtimes/password-probe.ts';

const commands = {
  bun: [join(BIN, 'bun'), ['run', PROBE]],
  deno: [join(BIN, 'deno'), ['run', '--allow-read', '--allow-env', '--allow-ffi', '--unstable-sloppy-imports', '--no-config', '--node-modules-dir=manual', PROBE]],
} as const;

describe.runIf(installed)('password hashing on Bun and Deno', () => {
  for (const [runtime, [command, args]] of Object.entries(commands)) {
    it(`${runtime}: argon2id with OWASP's parameters, and an imported bcrypt hash`, async () => {
      const imported = await bcrypt.hash(PASSWORD, 4);
      const run = spawnSync(command, [...args, PASSWORD, imported], { cwd: ROOT, encoding: 'utf8', timeout: 60_000, env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1' } });
      expect(run.status, run.stderr).toBe(0);
      const seen = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
      expect(seen).toMatchObject({ right: true, wrong: false, rehash: false, bcryptRight: true, bcryptWrong: false });
      // The hash made there is the PHC string Node reads: one format across runtimes.
      expect(String(seen.hash).startsWith('$argon2id$v=19$m=19456,t=2,p=1$')).toBe(true);
      expect(await argon2id().verify(String(seen.hash), PASSWORD.normalize('NFKC'))).toBe(true);
    }, 90_000);
  }
});
