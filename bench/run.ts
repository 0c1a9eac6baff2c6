// `npm run bench`: installs bench/'s own dependencies when they are missing, runs every benchmark side by side
// (each section in a process of its own), prints the results and writes bench/RESULTS.md.
// `npm run bench -- session http` runs only those (nothing written).
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderResults, targets } from './report.js';
import { FULL, SECTIONS, runBenchmarks, type Section } from './suite.js';

const BENCH = fileURLToPath(new URL('.', import.meta.url));
// The same default as .ci/run, so a machine with the local server needs no setup.
const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';

function ensureInstalled(): void {
  const modules = join(BENCH, 'node_modules');
  if (['@auth/core', 'autocannon', 'esbuild', 'better-auth'].every((p) => existsSync(join(modules, p, 'package.json')))) return;
  console.log('Installing the bench dependencies (npm --prefix bench ci)...');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const done = spawnSync(npm, ['--prefix', BENCH, 'ci', '--no-audit', '--no-fund'], { stdio: 'inherit' });
  if (done.status !== 0) console.warn('Could not install them: Auth.js and the HTTP load will be reported as not installed.');
}

const only = process.argv.slice(2).filter((a): a is Section => (SECTIONS as readonly string[]).includes(a));
ensureInstalled();
const results = await runBenchmarks(FULL, {
  log: (line) => console.log(line),
  databaseUrl: process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL,
  only: only.length ? only : undefined,
  isolate: true,
});
const markdown = renderResults(results);
console.log(`\n${markdown}`);
if (only.length) console.log('Partial run: bench/RESULTS.md left as it was.');
else {
  writeFileSync(join(BENCH, 'RESULTS.md'), markdown);
  console.log('Wrote bench/RESULTS.md');
}
const missed = targets(results).filter((t) => t.met === false);
if (missed.length) console.log(`Targets missed: ${missed.map((t) => t.name).join('; ')}`);
// A benchmark that failed is a broken harness, not a slow library: say so in the exit code.
process.exit(Object.keys(results.failures).length ? 1 : 0);
