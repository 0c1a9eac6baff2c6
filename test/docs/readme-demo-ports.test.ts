// The README says how to move the demo: every port variable the demo reads is named there, with the IdP's default of
// PORT + 1 (the demo's own sources are searched, so a new variable without a README line fails here).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const DEMO = join(ROOT, 'examples/demo');
const sources = readdirSync(DEMO, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts')).map((f) => readFileSync(join(DEMO, f), 'utf8'));

describe("the README on the demo's ports", () => {
  it('names every port variable the demo reads', () => {
    const variables = new Set(sources.flatMap((s) => [...s.matchAll(/env\.([A-Z_]*PORT[A-Z_]*)/g)].map((m) => m[1])));
    expect([...variables].sort()).toEqual(expect.arrayContaining(['DEMO_IDP_PORT', 'PORT']));
    for (const name of variables) expect(README, `README.md does not mention ${name}`).toContain(`\`${name}\``);
  });

  it('says the IdP takes PORT + 1 unless told otherwise, as the demo does', () => {
    expect(sources.some((s) => /DEMO_IDP_PORT \?\? port \+ 1/.test(s))).toBe(true);
    expect(README).toMatch(/`DEMO_IDP_PORT`, which defaults to\s+`PORT \+ 1`/);
    expect(README).toMatch(/`PORT=4000 npm start`/);
  });
});
