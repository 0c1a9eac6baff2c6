// Every TypeScript block in README.md and docs/*.md compiles against the public API (`authchart`, `authchart/node`,
// `authchart/providers`, ...), so a reader who copies one gets code that type-checks. New pages are picked up by
// themselves. The few blocks that are deliberately partial say so with `ts nocheck: <why>`, and stay few.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { codeBlocks, nocheckReason, pages, typecheckBlocks } from './code-blocks.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DOCS = readdirSync(new URL('../../docs/', import.meta.url));
const ALL = pages(ROOT, DOCS).flatMap(({ page, markdown }) => codeBlocks(page, markdown));
const CHECKED = ALL.filter((b) => nocheckReason(b) === null);
const SKIPPED = ALL.filter((b) => nocheckReason(b) !== null);
// A block that must fail, compiled in the same program: proof that the check reports errors, and where.
const [CANARY] = codeBlocks('docs/canary.md', "# Canary\n\n```ts\nimport { getSession } from 'authchart';\nconst n: number = await getSession(new Request('http://x'), { providers: [] });\n```\n");
let errors: string[] | undefined;
/** One program for all blocks (they share src/, the expensive part), compiled on first use. */
const result = () => (errors ??= typecheckBlocks(ROOT, [...CHECKED, CANARY]));

describe('the code blocks of the documentation', () => {
  it('covers the README and every page of docs/, each page with code in it', () => {
    expect(DOCS).toContain('README.md');
    const withCode = new Set(ALL.map((b) => b.page));
    for (const page of ['README.md', 'docs/getting-started-h3.md', 'docs/configuration.md', 'docs/custom-flows.md']) expect(withCode).toContain(page);
    expect(CHECKED.length, "the fence pattern finds the blocks").toBeGreaterThanOrEqual(30);
  });

  it('import authchart only through the entries package.json exports', () => {
    const { exports } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { exports: Record<string, unknown> };
    const entries = new Set(Object.keys(exports).map((k) => (k === '.' ? 'authchart' : `authchart/${k.slice(2)}`)));
    // `./providers/*`: a preset's subpath, named after its module in the catalogue (what the build makes an entry of).
    expect(entries.has('authchart/providers/*')).toBe(true);
    const isPreset = (entry: string) => /^authchart\/providers\/[a-z0-9-]+$/.test(entry) && !entry.endsWith('/index') && existsSync(new URL(`../../src/providers/catalogue/${entry.slice('authchart/providers/'.length)}.ts`, import.meta.url));
    const used = ALL.flatMap((b) => [...b.code.matchAll(/from '(authchart[^']*)'/g)].map((m) => ({ at: `${b.page}:${b.line}`, entry: m[1] })));
    expect(used.length).toBeGreaterThan(0);
    expect(used.some((u) => isPreset(u.entry))).toBe(true);
    expect(used.filter((u) => !entries.has(u.entry) && !isPreset(u.entry))).toEqual([]);
  });

  it('skips only blocks that say why, and only a few', () => {
    for (const b of SKIPPED) expect(nocheckReason(b), `${b.page}:${b.line} nocheck without a reason`).not.toBe('');
    expect(SKIPPED.length).toBeLessThanOrEqual(4);
  });

  it('type-check against the public entries', () => {
    expect(result().filter((e) => !e.startsWith(CANARY.page))).toEqual([]);
  }, 240_000);

  it('would report a block that does not compile, at its page and line', () => {
    const errors = result().filter((e) => e.startsWith(CANARY.page));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^docs\/canary\.md:5: TS2322 Type 'Session \| null' is not assignable to type 'number'/);
  }, 240_000);
});
