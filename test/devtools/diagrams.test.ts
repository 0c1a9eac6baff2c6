// Fails when a committed diagram under visualizations/ no longer matches the machines that draw it.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { renderDiagramFiles, VISUALIZATIONS_DIR } from '../../src/devtools/diagram-files.js';
import { drawnMachines } from '../../scripts/diagram-machines.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const expected = renderDiagramFiles(drawnMachines);
const hint = 'visualizations/ is stale: run `npm run visualize` and commit the result';

describe('visualizations/', () => {
  it('has an index', () => {
    expect(Object.keys(expected)).toContain(`${VISUALIZATIONS_DIR}/README.md`);
  });

  for (const [path, content] of Object.entries(expected)) {
    it(`${path} is up to date`, () => {
      const file = join(root, path);
      expect(existsSync(file), `${path} is missing; ${hint}`).toBe(true);
      expect(readFileSync(file, 'utf8'), `${path} differs; ${hint}`).toBe(content);
    });
  }

  it('holds no diagram of a machine that is gone', () => {
    const dir = join(root, VISUALIZATIONS_DIR);
    const present = existsSync(dir) ? readdirSync(dir).filter((name) => name.endsWith('.md')) : [];
    const extra = present.map((name) => `${VISUALIZATIONS_DIR}/${name}`).filter((path) => !(path in expected));
    expect(extra, `no machine draws these; ${hint}`).toEqual([]);
  });
});
