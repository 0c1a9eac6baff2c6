// The cold path of the BUILT package (tsdown.config.ts groups modules into chunks): a credentials-only app's first
// sign-in and session read load a handful of dist files, and none of them holds second-factor, WebAuthn or OAuth
// code, nor loads the libraries behind them. test/architecture/credentials-cold-path.test.ts checks the same on the
// sources; chunking can undo it (a chunk that mixes the credentials flow with the OAuth flow loads both), so this
// checks the files a fresh process of the installed tarball really loaded, by the `//#region src/...` markers the
// bundler writes for every module it puts into a chunk. Signing in with GitHub shows the check can fail.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNUSED_ON_CREDENTIALS } from '../architecture/cold-path-unused.js';
import { packAndInstall } from './install.js';
import { loadedModules, type LoadedModules } from './loaded-modules.js';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'authchart-dist-cold-path-'));
  packAndInstall(dir);
  copyFileSync(fileURLToPath(new URL('./app/cold-path.mjs', import.meta.url)), join(dir, 'cold-path.mjs'));
  copyFileSync(fileURLToPath(new URL('../architecture/cold-path-hooks.mjs', import.meta.url)), join(dir, 'cold-path-hooks.mjs'));
  copyFileSync(fileURLToPath(new URL('../architecture/cold-path-register.mjs', import.meta.url)), join(dir, 'cold-path-register.mjs'));
}, 240_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Loaded extends LoadedModules {
  out: { signIn: number; location: string | null; user: string | null };
}

function loadedBy(mode: 'credentials' | 'oauth' | 'page'): Loaded {
  const log = join(dir, `${mode}.log`);
  const out = execFileSync(process.execPath, ['--import', './cold-path-register.mjs', 'cold-path.mjs', mode], {
    cwd: dir,
    encoding: 'utf8',
    timeout: 60_000,
    env: { PATH: process.env.PATH, COLD_PATH_LOG: log, NODE_ENV: 'production' },
  });
  return { out: JSON.parse(out) as Loaded['out'], ...loadedModules(dir, log) };
}

const unused = (modules: string[]) => modules.filter((m) => UNUSED_ON_CREDENTIALS.some((pattern) => pattern.test(m)));

describe('the cold path of the packed build', () => {
  it('a credentials-only app signs in and reads its session from a few dist files, none holding unused flows', () => {
    const { out, files, modules, builtins } = loadedBy('credentials');
    expect(out).toEqual({ signIn: 302, location: 'http://localhost:3000/', user: 'Ada' });
    // The record is real: the credentials flow was loaded, from the bundle.
    expect(modules).toContain('/src/flows/credentials/machine.ts');
    expect(unused(modules)).toEqual([]);
    // Neither package that Node loads as CommonJS: xstate comes bundled as ESM (the sign-in runs it from a dist file),
    // the cookie headers are read and written by core/cookie-syntax.ts.
    expect(modules.filter((m) => /^\/node_modules\/(xstate|cookie)\//.test(m))).toEqual([]);
    const dist = (file: string) => readFileSync(join(dir, 'node_modules/authchart/dist', file), 'utf8');
    expect(files.some((file) => /^\/\/#region \S*node_modules\/xstate\/dist\/xstate\.esm\.js$/m.test(dist(file)))).toBe(true);
    // No JSDoc in the JavaScript a first sign-in parses (about a fifth of its bytes, 1–2 ms of CPU); the declarations
    // keep theirs for editors.
    expect(files.filter((file) => /^\s*\/\*\*/m.test(dist(file)))).toEqual([]);
    expect(dist('index.d.mts')).toMatch(/^\s*\/\*\*/m);
    // The fetch handler starts no server: neither srvx's Node adapter nor node:http, https or http2 (srvx's FastResponse
    // comes from dist/srvx-node.mjs).
    expect(modules.filter((m) => m.startsWith('/node_modules/srvx/'))).toEqual([]);
    expect(builtins.filter((b) => /^node:http/.test(b))).toEqual([]);
    // Nor node:net (about 3 ms of a first sign-in on Bun): client addresses are recognised by core/client-address.ts.
    expect(builtins).not.toContain('node:net');
    expect(files).toContain('srvx-node.mjs');
    // Few, larger chunks: the root, its eager chunk, srvx's classes, one lazy chunk for sign-in and what it shares with
    // the other entries; no facade file of an import() target (the build before chunk groups loaded 67 files here,
    // the one before tsdown.config.ts skipped the facades 12).
    expect(files.length, files.join(' ')).toBeLessThanOrEqual(6);
  }, 90_000);

  it('the sign-in page loads that page and what the pages share, not the error, sign-out, form or sign-up pages', () => {
    const { out, modules } = loadedBy('page');
    expect(out).toEqual({ signIn: 200, location: null, user: 'form' });
    expect(modules).toContain('/src/http/pages/signin.ts');
    expect(modules).toContain('/src/http/pages/theme.ts');
    // Each page is a chunk of its own (http/pages/load.ts): until 2026-11-29 one chunk held them all.
    expect(modules.filter((m) => /^\/src\/http\/pages\/(error|signout|verify-request|form|signup|confirm-email)\.ts$/.test(m))).toEqual([]);
  }, 90_000);

  it('the check can fail: signing in with GitHub loads the OAuth flow and oauth4webapi', () => {
    const { out, modules } = loadedBy('oauth');
    expect(out.signIn).toBe(302);
    expect(out.location).toMatch(/^https:\/\/github\.com\/login\/oauth\/authorize\?/);
    const loaded = unused(modules);
    expect(loaded.some((m) => m.startsWith('/src/flows/oauth/'))).toBe(true);
    expect(loaded.some((m) => m.startsWith('/node_modules/oauth4webapi/'))).toBe(true);
  }, 90_000);
});
