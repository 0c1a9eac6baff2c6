// `npm pack --json` prints JSON and nothing else, as release tools (changesets, release scripts) read it: the build
// that `prepack` runs logs to stderr. pack() (./install.ts) parses the whole of stdout and throws on anything more.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { pack } from './install.js';

describe('npm pack --json', () => {
  it('is valid JSON naming the tarball it wrote', () => {
    const { tarball, files } = pack();
    expect(existsSync(tarball)).toBe(true);
    expect(files).toContain('package/dist/index.mjs');
  }, 240_000);
});
