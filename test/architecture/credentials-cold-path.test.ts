// A credentials-only app pays for nothing it did not configure: its first sign-in loads no second-factor, WebAuthn
// or OAuth code, and none of the libraries behind them (@oslojs, oauth4webapi, jose, @simplewebauthn). Checked on
// the modules a fresh child process really loaded, recorded by module hooks; the same probe signing in with GitHub
// shows the check can fail.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { UNUSED_ON_CREDENTIALS as UNUSED } from './cold-path-unused.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'authchart-cold-path-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function loadedBy(mode: 'credentials' | 'oauth'): { modules: string[]; out: { signIn: number; location: string | null; user: string | null } } {
  const log = join(dir, `${mode}.log`);
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--import', './test/architecture/cold-path-register.mjs', 'test/architecture/cold-path-probe.ts', mode], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, COLD_PATH_LOG: log, NODE_ENV: 'production' },
  });
  return { modules: readFileSync(log, 'utf8').split('\n').filter(Boolean), out: JSON.parse(out) as { signIn: number; location: string | null; user: string | null } };
}

const unused = (modules: string[]) => modules.filter((url) => UNUSED.some((pattern) => pattern.test(url))).map((url) => url.slice(url.indexOf('/src/') >= 0 ? url.indexOf('/src/') : url.indexOf('/node_modules/')));

describe('the cold path of a credentials-only app', () => {
  it('signs in and reads the session having loaded no second-factor, WebAuthn or OAuth module', () => {
    const { modules, out } = loadedBy('credentials');
    expect(out).toEqual({ signIn: 302, location: 'http://localhost:3000/', user: 'Ada' });
    // The record is real: the credentials flow itself was loaded.
    expect(modules.some((url) => url.includes('/src/flows/credentials/'))).toBe(true);
    expect(unused(modules)).toEqual([]);
  }, 90_000);

  it('the check can fail: signing in with GitHub loads the OAuth flow and oauth4webapi', () => {
    const { modules, out } = loadedBy('oauth');
    expect(out.signIn).toBe(302);
    expect(out.location).toMatch(/^https:\/\/github\.com\/login\/oauth\/authorize\?/);
    const loaded = unused(modules);
    expect(loaded.some((m) => m.startsWith('/src/flows/oauth/'))).toBe(true);
    expect(loaded.some((m) => m.startsWith('/node_modules/oauth4webapi/'))).toBe(true);
  }, 90_000);
});
