// Packs the repository (`npm pack`, whose prepack builds dist) and installs the tarball into a fresh app folder,
// from npm's cache (no registry needed once the repository's own install has filled it). Shared by the tests that
// run the packed package: the consumer test and the other runtimes'.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * `npm pack`, once per test run: the test files that need the tarball run in parallel worker processes of one
 * vitest run (one parent), and two prepack builds at once would clean each other's dist/. The first to take the lock
 * packs; the others wait for its tarball.
 */
export function pack(): { tarball: string; files: string[] } {
  const dir = join(ROOT, 'node_modules/.cache/authchart-pack', String(process.ppid));
  const done = join(dir, 'packed.json');
  mkdirSync(dirname(dir), { recursive: true });
  let owner = false;
  try {
    mkdirSync(dir);
    owner = true;
  } catch {
    // Another worker of this run is packing (or has packed).
  }
  if (owner) {
    try {
      const out = execFileSync('npm', ['pack', '--json', '--pack-destination', dir], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 180_000 });
      // All of stdout is npm's JSON: the prepack build logs to stderr (release tools read this output as JSON).
      let parsed: { filename: string; files: { path: string }[] }[];
      try {
        parsed = JSON.parse(out) as typeof parsed;
      } catch {
        throw new Error(`npm pack --json printed more than JSON (the build must log to stderr):\n${out.slice(0, 2000)}`);
      }
      const [info] = parsed;
      writeFileSync(done, JSON.stringify({ tarball: join(dir, info.filename), files: info.files.map((f) => `package/${f.path}`) }));
    } catch (error) {
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
  }
  const deadline = Date.now() + 240_000;
  while (!existsSync(done)) {
    if (!existsSync(dir)) throw new Error('The worker that packed the tarball failed.');
    if (Date.now() > deadline) throw new Error('Timed out waiting for npm pack.');
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
  }
  return JSON.parse(readFileSync(done, 'utf8')) as { tarball: string; files: string[] };
}

/** Packs, then makes `dir` an app that depends on the tarball (and @types/node, as the repository pins it) and installs it. */
export function packAndInstall(dir: string, extra: Record<string, string> = {}): { tarball: string; files: string[] } {
  const packed = pack();
  const typesNode = (JSON.parse(readFileSync(join(ROOT, 'node_modules/@types/node/package.json'), 'utf8')) as { version: string }).version;
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'authchart-consumer', private: true, type: 'module', dependencies: { authchart: `file:${packed.tarball}`, ...extra }, devDependencies: { '@types/node': typesNode } }, null, 2),
  );
  execFileSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 180_000 });
  return packed;
}
