// Writes visualizations/ from the machine registry and the example custom flow (`npm run visualize`), or with
// `--check` only reports which files are stale or missing and exits 1, for CI.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderDiagramFiles, VISUALIZATIONS_DIR } from '../src/devtools/diagram-files.js';
import { drawnMachines } from './diagram-machines.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const check = process.argv.includes('--check');
const expected = renderDiagramFiles(drawnMachines);

// Only Markdown is generated here; SVGs from visualize:svg are build output and are left alone.
const dir = join(root, VISUALIZATIONS_DIR);
const present = existsSync(dir)
  ? readdirSync(dir)
      .filter((name) => name.endsWith('.md'))
      .map((name) => `${VISUALIZATIONS_DIR}/${name}`)
  : [];

const problems: string[] = [];
for (const [path, content] of Object.entries(expected)) {
  const file = join(root, path);
  if (!existsSync(file)) problems.push(`missing: ${path}`);
  else if (readFileSync(file, 'utf8') !== content) problems.push(`stale:   ${path}`);
}
for (const path of present) if (!(path in expected)) problems.push(`extra:   ${path} (no machine draws it)`);

if (check) {
  if (problems.length > 0) {
    console.error(`visualizations/ is out of date; run \`npm run visualize\`:\n  ${problems.join('\n  ')}`);
    process.exit(1);
  }
  console.log(`visualizations/ is up to date (${Object.keys(expected).length} files).`);
} else {
  mkdirSync(dir, { recursive: true });
  for (const [path, content] of Object.entries(expected)) writeFileSync(join(root, path), content);
  for (const path of present) if (!(path in expected)) rmSync(join(root, path));
  console.log(problems.length > 0 ? `updated:\n  ${problems.join('\n  ')}` : 'visualizations/ was already up to date.');
}
