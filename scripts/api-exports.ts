// The public API as a list of names: what each package entry exports (values and types), read from src/ with the
// TypeScript compiler. api/exports.json is the committed snapshot; test/package/public-api.test.ts compares it with
// src/ and refuses a name that disappeared unless CHANGELOG.md names it. After adding exports (or removing some and
// saying so in CHANGELOG.md), `npm run api:update` writes the snapshot anew; it refuses a removal CHANGELOG.md does not
// name.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const SNAPSHOT = join(ROOT, 'api/exports.json');
export const CHANGELOG = join(ROOT, 'CHANGELOG.md');

/** Each public entry (package.json "exports", less the presets' subpaths) and the source file it is built from. */
export const ENTRIES: Record<string, string> = {
  authchart: 'src/index.ts',
  'authchart/node': 'src/node.ts',
  'authchart/flow': 'src/flow.ts',
  'authchart/jwt': 'src/jwt.ts',
  'authchart/providers': 'src/providers/index.ts',
  'authchart/providers/oidc': 'src/providers/entries/oidc.ts',
  'authchart/providers/email': 'src/providers/entries/email.ts',
  'authchart/providers/webauthn': 'src/providers/entries/webauthn.ts',
  'authchart/providers/credentials': 'src/providers/entries/credentials.ts',
  'authchart/adapters': 'src/adapters/index.ts',
  'authchart/adapters/postgres': 'src/adapters/postgres/index.ts',
  'authchart/devtools': 'src/devtools/index.ts',
  'authchart/client': 'src/client/index.ts',
};

export type ExportLists = Record<string, string[]>;

/** The names each entry exports now, sorted. */
export function currentExports(root = ROOT): ExportLists {
  const files = Object.values(ENTRIES).map((f) => join(root, f));
  const program = ts.createProgram(files, { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, strict: true, noEmit: true, skipLibCheck: true, types: ['node'] });
  const checker = program.getTypeChecker();
  const lists: ExportLists = {};
  for (const [entry, file] of Object.entries(ENTRIES)) {
    const source = program.getSourceFile(join(root, file));
    const symbol = source && checker.getSymbolAtLocation(source);
    if (!symbol) throw new Error(`${file} (${entry}) is no module`);
    lists[entry] = checker.getExportsOfModule(symbol).map((s) => s.getName()).sort();
  }
  return lists;
}

/** Names of `before` that `now` lacks, as `entry: name`. */
export function removed(before: ExportLists, now: ExportLists): { entry: string; name: string }[] {
  return Object.entries(before).flatMap(([entry, names]) => names.filter((name) => !(now[entry] ?? []).includes(name)).map((name) => ({ entry, name })));
}

/** Names of `now` the snapshot lacks. */
export function added(before: ExportLists, now: ExportLists): { entry: string; name: string }[] {
  return removed(now, before);
}

/** Whether the changelog names an export (as `name`, in backticks). */
export function changelogNames(changelog: string, name: string): boolean {
  return changelog.includes(`\`${name}\``);
}

/** The removals the changelog does not name. */
export function unannouncedRemovals(before: ExportLists, now: ExportLists, changelog: string): { entry: string; name: string }[] {
  return removed(before, now).filter(({ name }) => !changelogNames(changelog, name));
}

export function readSnapshot(): ExportLists {
  return JSON.parse(readFileSync(SNAPSHOT, 'utf8')) as ExportLists;
}

// `npm run api:update`: writes the snapshot, unless an export went without a CHANGELOG.md entry.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const now = currentExports();
  let before: ExportLists = {};
  try {
    before = readSnapshot();
  } catch {
    // No snapshot yet: the first one is written.
  }
  const missing = unannouncedRemovals(before, now, readFileSync(CHANGELOG, 'utf8'));
  if (missing.length > 0) {
    console.error(`These exports are gone and CHANGELOG.md does not name them (as \`name\`):\n${missing.map((m) => `  ${m.entry}: ${m.name}`).join('\n')}`);
    process.exit(1);
  }
  writeFileSync(SNAPSHOT, `${JSON.stringify(now, null, 2)}\n`);
  const news = added(before, now);
  console.error(`api/exports.json written (${Object.values(now).flat().length} names; ${news.length} added, ${removed(before, now).length} removed).`);
}
