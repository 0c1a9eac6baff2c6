// Every type reachable from a public export is itself exported: an app or a library that publishes types
// (`declaration: true`) compiles the docs' examples against the packed package under NodeNext and Bundler without
// TS4023 ("has or is using name ... but cannot be named") or TS2742 ("cannot be named without a reference to ...").
// The examples: examples/custom-flow (the custom flow the docs walk through) and every TypeScript block of the README
// and docs/ whose imports the package alone provides (authchart and its subpaths, xstate, h3, Node's built-ins).
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeBlocks, nocheckReason, pages } from '../docs/code-blocks.js';
import { packAndInstall } from './install.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
const CROSSWS = `^${(JSON.parse(readFileSync(join(ROOT, 'node_modules/crossws/package.json'), 'utf8')) as { version: string }).version}`;
// server.ts is left out: it loads @electric-sql/pglite, which the package only names as an optional peer.
const CUSTOM_FLOW = ['machine.ts', 'provider.ts'];

/** A block the installed package alone can compile: every import is authchart's, xstate, h3 or a Node built-in. */
function selfContained(code: string): boolean {
  const specifiers = [...code.matchAll(/\bfrom\s+['"]([^'"]+)['"]|\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1] ?? m[2]);
  return specifiers.every((s) => /^(authchart(\/.*)?|xstate|h3|node:.+)$/.test(s));
}

let dir: string;
const files: string[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'authchart-declarations-'));
  packAndInstall(dir, { crossws: CROSSWS });
  mkdirSync(join(dir, 'custom-flow'));
  for (const f of CUSTOM_FLOW) copyFileSync(join(ROOT, 'examples/custom-flow', f), join(dir, 'custom-flow', f));
  files.push(...CUSTOM_FLOW.map((f) => `custom-flow/${f}`));
  mkdirSync(join(dir, 'docs'));
  const blocks = pages(ROOT, readdirSync(join(ROOT, 'docs'))).flatMap(({ page, markdown }) => codeBlocks(page, markdown));
  for (const block of blocks) {
    if (nocheckReason(block) !== null || !selfContained(block.code)) continue;
    const file = `docs/${block.page.replace(/[^A-Za-z0-9]+/g, '_')}-${block.line}.ts`;
    writeFileSync(join(dir, file), `${block.code}\nexport {};\n`);
    files.push(file);
  }
}, 240_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function emitDeclarations(name: string, options: Record<string, unknown>): string {
  const tsconfig = {
    compilerOptions: { target: 'ES2022', strict: true, declaration: true, emitDeclarationOnly: true, outDir: `out-${name}`, skipLibCheck: true, types: ['node'], lib: ['ESNext', 'DOM', 'DOM.Iterable'], ...options },
    files,
  };
  writeFileSync(join(dir, `tsconfig.${name}.json`), JSON.stringify(tsconfig, null, 2));
  try {
    execFileSync(process.execPath, [TSC, '-p', `tsconfig.${name}.json`], { cwd: dir, encoding: 'utf8' });
    return '';
  } catch (error) {
    return (error as { stdout?: string }).stdout ?? String(error);
  }
}

/** Names an entry's declaration file exports (`export { a, type B as C }`, `export declare const x`). */
function exportedNames(text: string): string[] {
  const lists = [...text.matchAll(/^export \{([^}]*)\}/gm)].flatMap((m) => m[1].split(','));
  const names = lists.map((spec) => spec.trim().replace(/^type /, '').split(' as ').pop()!.trim());
  return [...names, ...[...text.matchAll(/^export (?:declare )?(?:interface|type|class|const|function|enum) (\w+)/gm)].map((m) => m[1])].filter(Boolean);
}

/**
 * Types an entry's declarations use but no entry exports: those imported from a shared chunk, and those declared in
 * the entry's own file without an export. Each would be TS4023 or TS2742 in a consumer's declarations.
 */
function unexportedTypes(pkg: string): string[] {
  const manifest = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as { exports: Record<string, string | { types?: string }> };
  const entries = Object.entries(manifest.exports).flatMap(([key, v]) => (typeof v === 'object' && v.types && !key.includes('*') ? [join(pkg, v.types)] : []));
  const presets = readdirSync(join(pkg, 'dist/providers')).filter((f) => f.endsWith('.d.mts')).map((f) => join(pkg, 'dist/providers', f));
  const exported = new Set([...entries, ...presets].flatMap((file) => exportedNames(readFileSync(file, 'utf8'))));
  const missing = new Set<string>();
  for (const file of entries) {
    const text = readFileSync(file, 'utf8');
    const imported = [...text.matchAll(/^import \{([^}]*)\} from "\.[^"]*"/gm)].flatMap((m) => m[1].split(',').map((spec) => spec.trim().replace(/^type /, '').split(' as ').pop()!.trim()));
    const declared = [...text.matchAll(/^(?:declare )?(?:interface|type|class|enum) (\w+)/gm)].map((m) => m[1]);
    for (const name of [...imported, ...declared]) if (name && !exported.has(name)) missing.add(`${file.slice(pkg.length + 1)}: ${name}`);
  }
  return [...missing].sort();
}

describe('declaration emit of the docs examples against the packed package', () => {
  it('every type an entry\'s declarations use is exported by some entry', () => {
    expect(unexportedTypes(join(dir, 'node_modules/authchart'))).toEqual([]);
  });
  it('covers the custom flow and docs blocks', () => {
    expect(files.filter((f) => f.startsWith('docs/')).length).toBeGreaterThan(10);
  });
  it('NodeNext', () => {
    expect(emitDeclarations('nodenext', { module: 'NodeNext', moduleResolution: 'NodeNext' })).toBe('');
  }, 180_000);
  it('Bundler', () => {
    expect(emitDeclarations('bundler', { module: 'ESNext', moduleResolution: 'Bundler' })).toBe('');
  }, 180_000);
});
