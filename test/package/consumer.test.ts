// The package as a user gets it: `npm pack` (prepack builds dist with tsdown), installed into a fresh app from the
// tarball, type-checked with skipLibCheck off under moduleResolution NodeNext and Bundler, then run: a credentials
// sign-in through the fetch handler and the session read back.
//
// With skipLibCheck off, h3's own declarations (which authchart's types import for H3Event) need lib ESNext
// (Error.isError) and DOM, and h3's optional peer crossws installed: the app has all three, as README says.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packAndInstall } from './install.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
const APP_FILES = ['app.ts', 'main.ts'];
/** Run as it is (plain ESM): a custom flow built with the app's own xstate. */
const CUSTOM_FLOW = 'custom-flow.mjs';
const CROSSWS = `^${(JSON.parse(readFileSync(join(ROOT, 'node_modules/crossws/package.json'), 'utf8')) as { version: string }).version}`;

let dir: string;
let files: string[];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'authchart-consumer-'));
  files = packAndInstall(dir, { crossws: CROSSWS }).files;
  for (const f of [...APP_FILES, CUSTOM_FLOW]) copyFileSync(fileURLToPath(new URL(`./app/${f}`, import.meta.url)), join(dir, f));
}, 240_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function typecheck(name: string, options: Record<string, unknown>): string {
  const tsconfig = {
    compilerOptions: { target: 'ES2022', strict: true, skipLibCheck: false, types: ['node'], lib: ['ESNext', 'DOM', 'DOM.Iterable'], ...options },
    files: APP_FILES,
  };
  writeFileSync(join(dir, `tsconfig.${name}.json`), JSON.stringify(tsconfig, null, 2));
  try {
    return execFileSync(process.execPath, [TSC, '-p', `tsconfig.${name}.json`], { cwd: dir, encoding: 'utf8' });
  } catch (error) {
    throw new Error(`tsc (${name}) failed:\n${(error as { stdout?: string }).stdout}`);
  }
}

describe('the packed package', () => {
  it('holds the bundled dist: every entry with its types, few files, no sources or tests', () => {
    for (const entry of ['index', 'node', 'providers/index', 'providers/oidc', 'providers/email', 'providers/webauthn', 'providers/credentials', 'adapters/index', 'adapters/postgres/index', 'devtools/index', 'client/index']) {
      expect(files).toContain(`package/dist/${entry}.mjs`);
      expect(files).toContain(`package/dist/${entry}.d.mts`);
    }
    expect(files.filter((f) => !f.startsWith('package/dist/') && !/^package\/(package\.json|README\.md|LICENSE)$/.test(f))).toEqual([]);
    // One JavaScript file and its declarations per provider subpath (a kind's, or a preset's); few files besides.
    const subpaths = files.filter((f) => f.startsWith('package/dist/providers/'));
    expect(subpaths.filter((f) => f.endsWith('.mjs')).map((f) => f.replace(/\.mjs$/, '.d.mts')).sort()).toEqual(subpaths.filter((f) => f.endsWith('.d.mts')).sort());
    expect(subpaths.filter((f) => f.endsWith('.mjs')).length).toBe(5 + 93);
    // Each lazily loaded flow is a chunk of its own (this round added SAML, the change of address and their steps;
    // then session control, loaded with its first call, and its import() facade).
    expect(files.length - subpaths.length).toBeLessThan(185);
  });

  it('type-checks under moduleResolution NodeNext, skipLibCheck off', () => {
    typecheck('nodenext', { module: 'NodeNext', moduleResolution: 'NodeNext', outDir: 'out' });
  }, 120_000);

  it('type-checks under moduleResolution Bundler, skipLibCheck off', () => {
    typecheck('bundler', { module: 'ESNext', moduleResolution: 'Bundler', noEmit: true });
  }, 120_000);

  it('runs: signs in with credentials through the fetch handler and reads the session', () => {
    const out = execFileSync(process.execPath, ['out/main.js'], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
    const result = JSON.parse(out) as { status: number; location: string; session: { user?: { name?: string } } | null; touched: Record<string, unknown> };
    expect(result.status).toBe(302);
    expect(result.location).toBe('http://localhost:3000/home');
    expect(result.session?.user?.name).toBe('ada');
    expect(result.touched).toMatchObject({ adapterMethods: true, toMermaid: 'function' });
  }, 60_000);

  it("runs a custom flow built with the app's own xstate on the runtime's bundled copy: paused, restored, signed in or refused", () => {
    // Two copies for real: the dist carries xstate's ESM build (no import of the package), the app loads the package.
    // The sign-in group chunk is `signin-<8-character hash>.mjs` (a module named signin-* gets a chunk of its own; the
    // sign-in page's chunk is page-signin, which leaves a facade file named after its module, signin.ts).
    const dist = join(dir, 'node_modules/authchart/dist');
    const importers = files.filter((f) => f.endsWith('.mjs')).filter((f) => /\bfrom\s*"xstate(\/[^"]*)?"|import\(\s*"xstate/.test(readFileSync(join(dir, 'node_modules/authchart', f.slice('package/'.length)), 'utf8')));
    expect(importers).toEqual([]);
    const signIn = files.filter((f) => /dist\/signin-[\w-]{8}\.mjs$/.test(f)).map((f) => readFileSync(join(dist, f.slice('package/dist/'.length)), 'utf8'));
    expect(signIn.filter((text) => /^\/\/#region .*node_modules\/xstate\/dist\/xstate\.esm\.js$/m.test(text))).toHaveLength(1);
    const out = execFileSync(process.execPath, [CUSTOM_FLOW], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
    expect(JSON.parse(out)).toEqual({
      right: { form: 200, asks: true, done: 302, location: 'http://localhost:3000/', user: { name: 'Ali', email: 'ali@example.test' } },
      wrong: { form: 200, asks: true, done: 302, location: 'http://localhost:3000/auth/signin?error=CredentialsSignin&code=credentials', user: null },
      driver: { paused: 'paused', done: 'signedIn' },
    });
  }, 60_000);

  it('npx authchart: prints a secret, and the doctor reads the app\'s compiled configuration', () => {
    const cli = join(dir, 'node_modules/.bin/authchart');
    expect(execFileSync(cli, ['secret'], { cwd: dir, encoding: 'utf8' }).trim()).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const report = execFileSync(cli, ['doctor', '--config', 'out/app.js'], { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH } });
    expect(report).toContain('No problem found.');
  }, 60_000);

  it('keeps the lazy parts lazy: the root loads none of them, each is a chunk of its own reached by import()', () => {
    const dist = join(dir, 'node_modules/authchart/dist');
    const edges = (file: string, kind: 'static' | 'dynamic') => {
      const text = readFileSync(join(dist, file), 'utf8');
      const pattern = kind === 'static' ? /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s*"\.\/([^"]+)"|(?:^|\n)import\s*"\.\/([^"]+)"/g : /import\(\s*"\.\/([^"]+)"\s*\)/g;
      return [...text.matchAll(pattern)].map((m) => m[1] ?? m[2]);
    };
    const reached = new Set<string>();
    const stack = ['index.mjs'];
    while (stack.length > 0) {
      const file = stack.pop()!;
      if (reached.has(file)) continue;
      reached.add(file);
      stack.push(...edges(file, 'static'));
    }
    const lazy = [...reached].flatMap((f) => edges(f, 'dynamic'));
    const lazyNames = lazy.map((f) => f.replace(/-[\w-]{8}\.mjs$/, ''));
    // What an app loads on first use: the flow runtime (the signin chunk, imported directly rather than through a facade
    // file: tsdown.config.ts), the session's database strategy, each page (a chunk of its own), the Node bridge.
    for (const name of ['signin', 'database-strategy', 'page-signin', 'page-error', 'page-signout', 'node']) expect(lazyNames, name).toContain(name);
    for (const file of lazy) expect(reached.has(file), `${file} is loaded statically by the root`).toBe(false);
    // Nor does any chunk import() a file the root loads statically: an app's bundler would make that file an entry of
    // its own, every export of it kept, and the whole root chunk would be in the app's start bundle.
    const all = files.filter((f) => f.startsWith('package/dist/') && f.endsWith('.mjs') && !f.includes('/providers/')).map((f) => f.slice('package/dist/'.length));
    const intoRoot = all.flatMap((f) => edges(f, 'dynamic').filter((target) => reached.has(target)).map((target) => `${f} -> ${target}`));
    expect(intoRoot).toEqual([]);
  });

  it('has no import of a module in the same chunk that reads the name it declares (a ReferenceError at run time)', () => {
    // `const { x } = await import('./m.js')`, with m.js in the importer's chunk, is built into
    // `const { x } = await Promise.resolve({ get x() { return x; } })`: the getter reads the `x` being declared.
    // It broke `GET /auth/session` with organizations on, in the package only (the sources ran fine).
    const selfRead = /const \{ (\w+)(?: as \w+)? \} = await Promise\.resolve\(\(\{ get (\w+)\(\) \{ return \1; \}/;
    const found = files.filter((f) => f.endsWith('.mjs')).filter((f) => selfRead.test(readFileSync(join(dir, 'node_modules/authchart', f.slice('package/'.length)), 'utf8')));
    expect(found).toEqual([]);
  });

  it('the installed package.json points every subpath at a file that exists', () => {
    const manifest = JSON.parse(readFileSync(join(dir, 'node_modules/authchart/package.json'), 'utf8')) as { exports: Record<string, unknown> };
    expect(Object.keys(manifest.exports).sort()).toEqual(['.', './adapters', './adapters/postgres', './client', './devtools', './flow', './jwt', './node', './package.json', './providers', './providers/*', './providers/credentials', './providers/email', './providers/oidc', './providers/webauthn']);
    const root = join(dir, 'node_modules/authchart');
    for (const [subpath, target] of Object.entries(manifest.exports)) {
      const paths = typeof target === 'string' ? [target] : Object.values(target as Record<string, string>);
      // A pattern's targets: each file it can name exists with its sibling (checked above), so the directory must.
      for (const path of paths) expect(existsSync(join(root, path.includes('*') ? dirname(path) : path)), `${subpath}: ${path}`).toBe(true);
    }
  });
});
