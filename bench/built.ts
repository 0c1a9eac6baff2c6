// The package under test, as users run it: `npm pack` (whose prepack builds dist/) installed into an app folder of
// its own, and every entry imported from there: the bundled chunks, srvx and jose from the app's node_modules, the
// `#srvx` import resolved by Node. Not the sources through tsx, which differ from what ships (no bundling, `__name`
// wrappers, srvx's own Node adapter). One install per run: the first process packs and installs, and the sections it
// spawns find the folder in AUTHCHART_BENCH_APP. The types are the sources' (the dist's declarations are built from them).
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { packAndInstall } from '../test/package/install.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const APP_ENV = 'AUTHCHART_BENCH_APP';
/** The optional peers the benches' configurations load (argon2id, PostgreSQL), at the versions the repository pins. */
const PEERS = ['@node-rs/argon2', 'pg'];

/** The app folder with the packed authchart installed: packed and installed once per run. */
export function installedApp(log: (line: string) => void = (line) => console.error(line)): string {
  const known = process.env[APP_ENV];
  if (known && existsSync(join(known, 'node_modules', 'authchart', 'package.json'))) return known;
  const dir = mkdtempSync(join(tmpdir(), 'authchart-bench-app-'));
  // Removed when the process that made it exits (its sections, children of it, have ended by then).
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  log(`Packing authchart and installing the tarball into ${dir}...`);
  const version = (name: string) => (JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
  packAndInstall(dir, Object.fromEntries(PEERS.map((name) => [name, version(name)])));
  process.env[APP_ENV] = dir;
  return dir;
}

/** One entry of the installed package (`.`, `./node`, ...), by its package.json "exports". */
async function entry<T>(subpath: string): Promise<T> {
  const pkg = join(installedApp(), 'node_modules', 'authchart');
  const exports = (JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as { exports: Record<string, { import: string }> }).exports;
  return (await import(pathToFileURL(join(pkg, exports[subpath].import)).href)) as T;
}

/** `authchart` */
export const root = await entry<typeof import('../src/index.js')>('.');
/** `authchart/node` */
export const node = await entry<typeof import('../src/node.js')>('./node');
/** `authchart/providers` */
export const providers = await entry<typeof import('../src/providers/index.js')>('./providers');
/** `authchart/adapters/postgres` */
export const postgres = await entry<typeof import('../src/adapters/postgres/index.js')>('./adapters/postgres');
