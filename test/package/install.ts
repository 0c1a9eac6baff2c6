// Packs the repository (`npm pack`, whose prepack builds dist) and installs the tarball into a fresh app folder,
// from npm's cache (no registry needed once the repository's own install has filled it). Shared by the tests that
// run the packed package: the consumer test and the other runtimes'.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** `npm pack` into `dir`: the tarball's path and the files it holds. */
export function pack(dir: string): { tarball: string; files: string[] } {
  const out = execFileSync('npm', ['pack', '--json', '--pack-destination', dir], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 180_000 });
  const [info] = JSON.parse(out.slice(out.indexOf('['))) as { filename: string; files: { path: string }[] }[];
  return { tarball: join(dir, info.filename), files: info.files.map((f) => `package/${f.path}`) };
}

/** Packs, then makes `dir` an app that depends on the tarball (and @types/node, as the repository pins it) and installs it. */
export function packAndInstall(dir: string, extra: Record<string, string> = {}): { tarball: string; files: string[] } {
  const packed = pack(dir);
  const typesNode = (JSON.parse(readFileSync(join(ROOT, 'node_modules/@types/node/package.json'), 'utf8')) as { version: string }).version;
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'authchart-consumer', private: true, type: 'module', dependencies: { authchart: `file:${packed.tarball}`, ...extra }, devDependencies: { '@types/node': typesNode } }, null, 2),
  );
  execFileSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 180_000 });
  return packed;
}
