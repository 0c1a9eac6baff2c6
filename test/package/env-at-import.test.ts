// Nothing in the BUILT package reads the environment, the terminal or the clock at import, dependencies included:
// each entry of the installed tarball is imported in a fresh Node process that records every such read (Deno refuses
// them without --allow-env: `NotCapable: Requires env access to "TERM"`). The probe itself can fail: a module that
// reads NO_COLOR at load is reported.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packAndInstall } from './install.js';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'authchart-env-at-import-'));
  packAndInstall(dir);
  copyFileSync(fileURLToPath(new URL('./app/env-at-import.mjs', import.meta.url)), join(dir, 'env-at-import.mjs'));
}, 240_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const readsAtImport = (...entries: string[]): string[] =>
  JSON.parse(execFileSync(process.execPath, ['env-at-import.mjs', ...entries], { cwd: dir, encoding: 'utf8', timeout: 60_000 })) as string[];

describe('the built package at import', () => {
  // srvx's adapters run a colour check at load (FORCE_COLOR, NO_COLOR, TERM, process.stdout.isTTY: Deno refuses it
  // without --allow-env). The root entry avoids them (src/http/srvx-web.ts, dist/srvx-node.mjs), and authchart/node
  // takes srvx's NodeRequest from a bundled copy (src/http/srvx-node-request.ts), not from srvx/node.
  for (const entry of ['authchart', 'authchart/node', 'authchart/flow', 'authchart/jwt', 'authchart/client']) {
    it(`${entry} reads neither the environment, the terminal nor the clock`, () => {
      expect(readsAtImport(entry)).toEqual([]);
    });
  }

  it('the probe reports a module that reads the environment at load (the check can fail)', () => {
    // Both read whatever their values (a `||` would skip the terminal when NO_COLOR is set, as CI sets it).
    writeFileSync(join(dir, 'colour-check.mjs'), 'export const noColor = process.env.NO_COLOR;\nexport const tty = process.stdout.isTTY;\n');
    const reads = readsAtImport('./colour-check.mjs');
    expect(reads.some((r) => r.startsWith('env NO_COLOR') && r.includes('colour-check.mjs'))).toBe(true);
    expect(reads.some((r) => r.startsWith('stdout.isTTY') && r.includes('colour-check.mjs'))).toBe(true);
  });
});
