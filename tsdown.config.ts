// The published build (npm pack runs it through `prepack`): one bundle per package entry, ESM with .d.ts.
// A cold start is mostly module loading (each file is a resolve, a read, a compile and a link; each lazy import a
// step of a waterfall), so the lazily loaded parts are grouped into a few larger chunks by what loads them:
// - `core`: every module the root entry loads at import time (the other entries share it);
// - `signin`: what a first sign-in of any kind adds (the flow route, the runtime's door, the sign-in tail, the
//   credentials flow, the throttle that production turns on): one lazy step instead of a chain of small ones;
// - each other flow (OAuth, e-mail, WebAuthn, second factor, account, ...) and the pages stay chunks of their own,
//   so a configuration that does not use them never loads them (test/package/dist-cold-path.test.ts checks the
//   built files).
// xstate is bundled too: its package hands Node the CommonJS build (the ESM one only under the `module` condition,
// which Node does not read), and loading it as CommonJS was about a fifth of a first sign-in's CPU. A custom flow's
// machine, built with the app's own xstate, runs under the bundled runtime: xstate's actors, systems and snapshots
// meet through their public shape, not module identity (test/package/consumer.test.ts runs one on the packed build).
import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'tsdown';

const SRC = fileURLToPath(new URL('./src/', import.meta.url));
const source = (path: string) => resolve(SRC, path);

/** The provider kinds with a subpath of their own (src/providers/entries/<kind>.ts, package.json "exports"). */
const PROVIDER_KINDS = ['oidc', 'email', 'webauthn', 'credentials'];
/**
 * The catalogue presets, each with a subpath of its own (authchart/providers/github, as @auth/core/providers/github):
 * an app that imports one preset there loads that preset, not the whole catalogue with the e-mail senders and WebAuthn.
 */
const CATALOGUE = source('providers/catalogue/');
const PRESETS = readdirSync(CATALOGUE)
  .filter((file) => file.endsWith('.ts') && file !== 'index.ts' && !file.startsWith('_'))
  .map((file) => file.slice(0, -3));
const PRESET_COPY = 'authchart-preset:';
const PRESET_ENTRY = 'authchart-preset-entry:';

/**
 * A preset's subpath entry is a copy of its module, not the module itself. A module lives in one chunk: were the
 * presets the entries, the `authchart/providers` barrel would import them as 93 files (about 50 ms of a cold start
 * instead of 9 for one file). So each subpath gets the preset's source under a module id of its own (its relative
 * imports made absolute): the barrel keeps its single file, a subpath loads its preset and the small shared chunks it
 * needs (the OAuth factories, the catalogue's HTTP helpers). A preset that builds on another imports the other's copy.
 */
const presetEntries = {
  name: 'authchart:preset-entries',
  resolveId(id: string) {
    return id.startsWith(PRESET_COPY) || id.startsWith(PRESET_ENTRY) ? `\0${id}` : null;
  },
  load(id: string) {
    // The subpath exports the factory (the default export) and no helper its module exports for tests.
    if (id.startsWith(`\0${PRESET_ENTRY}`)) return `export { default } from '${PRESET_COPY}${id.slice(PRESET_ENTRY.length + 1)}';\n`;
    if (!id.startsWith(`\0${PRESET_COPY}`)) return null;
    const code = readFileSync(resolve(CATALOGUE, `${id.slice(PRESET_COPY.length + 1)}.ts`), 'utf8').replace(
      /(from\s+)(['"])(\.\.?\/[^'"]+)\.js\2/g,
      (_all, from: string, quote: string, path: string) => `${from}${quote}${path.startsWith('./') && PRESETS.includes(path.slice(2)) ? `${PRESET_COPY}${path.slice(2)}` : `${resolve(CATALOGUE, path)}.ts`}${quote}`,
    );
    return { code, moduleType: 'ts' as const };
  },
  // The declarations of each subpath: its preset's factory as the default export and its profile types, named as
  // the barrel (whose declarations hold them) exports them.
  generateBundle(this: { emitFile(file: { type: 'asset'; fileName: string; source: string }): string }, _options: unknown, bundle: Record<string, unknown>) {
    const barrel = readFileSync(resolve(CATALOGUE, 'index.ts'), 'utf8');
    for (const [, factory, names = '', name] of barrel.matchAll(/^import (\w+)(?:, \{ ([^}]*) \})? from '\.\/([\w-]+)\.js';$/gm)) {
      const fileName = `providers/${name}.d.mts`;
      if (!PRESETS.includes(name) || fileName in bundle) continue;
      const types = names.split(',').map((n) => n.trim().replace(/^type /, '')).filter(Boolean);
      const lines = [`export { ${factory} as default } from './index.mjs';`, ...(types.length > 0 ? [`export type { ${types.join(', ')} } from './index.mjs';`] : [])];
      this.emitFile({ type: 'asset', fileName, source: `${lines.join('\n')}\n` });
    }
  },
};

/** What each group's first loader imports (the group is their static closure, less the groups before it). */
const CORE_ROOTS = ['index.ts'].map(source);
const SIGNIN_ROOTS = ['http/flow.ts', 'flows/runtime/door.ts', 'flows/runtime/flow.ts', 'flows/registry.ts', 'flows/credentials/machine.ts', 'flows/signin/machine.ts', 'flows/runtime/record.ts', 'http/throttle.ts'].map(source);
/** Entries an app may import without signing anyone in: what they import statically stays out of `signin`. */
const OTHER_ROOTS = ['providers/index.ts', ...PROVIDER_KINDS.map((kind) => `providers/entries/${kind}.ts`), 'jwt.ts', 'node.ts', 'adapters/index.ts', 'adapters/postgres/index.ts'].map(source);
/** The built-in pages, each loaded with the first request that shows it (http/pages/load.ts). */
const PAGES_ROOTS = ['signin', 'error', 'signout', 'verify-request', 'form', 'signup', 'confirm-email'].map((page) => source(`http/pages/${page}.ts`));
/** Never in `signin`, even when reachable from its roots: a credentials-only app must not load them. */
const NOT_SIGNIN = /[\\/]src[\\/](flows[\\/](oauth|second-factor|webauthn|email|logout|account|password|tokens)[\\/]|providers[\\/](oauth|webauthn|email|catalogue)|http[\\/]pages[\\/])/;

/** Each built-in page's chunk, named `page-<page>` (the sign-in page's would otherwise share the name `signin`). */
const pageChunk = (id: string): string | null => (PAGES_ROOTS.includes(id) ? `page-${basename(id, '.ts')}` : null);

/** Shared by the pages and another entry, but too large for what loads it with `shared` (a sign-in): English. */
const OWN_CHUNK = /[\\/]src[\\/]core[\\/]messages[\\/](en|english)\.ts$/;

interface Info {
  importedIds: readonly string[];
}
interface Context {
  getModuleInfo(id: string): Info | null;
}

/** Every module that `roots` import statically, the roots included; dependencies (external) are not followed. */
function closure(roots: string[], ctx: Context): Set<string> {
  const seen = new Set<string>();
  const stack = [...roots];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    stack.push(...(ctx.getModuleInfo(id)?.importedIds ?? []));
  }
  return seen;
}

// One chunking pass reuses its module-info objects: the groups are computed once per pass, keyed by the root's.
const passes = new WeakMap<Info, Map<string, string>>();
function groupsOf(ctx: Context): Map<string, string> {
  const key = ctx.getModuleInfo(CORE_ROOTS[0]);
  if (!key) return new Map();
  let groups = passes.get(key);
  if (!groups) {
    groups = new Map();
    for (const id of closure(SIGNIN_ROOTS, ctx)) if (!NOT_SIGNIN.test(id)) groups.set(id, 'signin');
    // Shared with another entry: a chunk of its own (a `signin` module's dependencies would otherwise follow it in).
    for (const id of closure(OTHER_ROOTS, ctx)) if (groups.has(id)) groups.set(id, 'shared');
    // So is what another entry shares with the pages (HTML escaping, colours): small chunks of their own otherwise,
    // each one more file to load before an OAuth redirect.
    const pages = closure(PAGES_ROOTS, ctx);
    for (const id of closure(OTHER_ROOTS, ctx)) if (pages.has(id) && !OTHER_ROOTS.includes(id) && !OWN_CHUNK.test(id)) groups.set(id, 'shared');
    // What several pages share (the theme, the text helpers, the passkey strings): one chunk that the first page
    // loads with it, not a small file each. Each page stays a chunk of its own, English one too.
    // English stays a chunk of its own (mails and a flow's form text load it without any page).
    for (const id of pages) if (!groups.has(id) && !PAGES_ROOTS.includes(id)) groups.set(id, OWN_CHUNK.test(id) ? 'english' : 'pages');
    for (const id of closure(CORE_ROOTS, ctx)) groups.set(id, 'core');
    // An entry module stays in its own entry chunk.
    for (const id of CORE_ROOTS) groups.delete(id);
    passes.set(key, groups);
  }
  return groups;
}

/**
 * The dependencies (and their subpaths) bundled into the JavaScript. ESM only: a CommonJS one (cookie) would bring
 * the bundler's CommonJS helpers, whose shared chunk calls createRequire(import.meta.url) at load, which workerd
 * refuses.
 */
const INLINED = /^(h3|rou3|xstate)(\/|$)/;
/**
 * srvx's FastResponse and FastURL for Node, bundled out of srvx's Node adapter (its server, and node:http, https and
 * http2 with it, are left out). The rest of the dist imports `#srvx` where it imported `srvx`: package.json "imports"
 * sends Node to this file and every other runtime to dist/srvx-web.mjs (the native classes): srvx's own adapters read
 * the environment at import (src/http/srvx-web.ts).
 */
const SRVX_NODE = source('http/srvx-node.ts');
/**
 * srvx's NodeRequest for authchart/node, bundled the same way into dist/srvx-node-request.mjs. Bundled from srvx's own
 * modules, both entries would share them (srvx's Node adapter and its URL class), and the bundler would move them into
 * a chunk that dist/srvx-node.mjs imports: one more file, with node:stream, on every Node cold start. So this entry
 * bundles a private copy of srvx's modules (`srvxCopy` below): each of the two files holds only what it uses.
 */
const SRVX_NODE_REQUEST = source('http/srvx-node-request.ts');
const SRVX_COPY = '\0authchart-srvx-copy:';

/** Resolves srvx/node, from SRVX_NODE_REQUEST, and every relative import inside it, to a module id of its own. */
const srvxCopy = {
  name: 'authchart:srvx-copy',
  async resolveId(
    this: { resolve(source: string, importer: string, options: { skipSelf: boolean }): Promise<{ id: string } | null> },
    id: string,
    importer: string | undefined,
  ) {
    if (importer === SRVX_NODE_REQUEST && id === 'srvx/node') {
      const real = await this.resolve(id, importer, { skipSelf: true });
      return real ? `${SRVX_COPY}${real.id}` : null;
    }
    if (importer?.startsWith(SRVX_COPY) && id.startsWith('.')) return `${SRVX_COPY}${resolve(dirname(importer.slice(SRVX_COPY.length)), id)}`;
    return null;
  },
  load(id: string) {
    return id.startsWith(SRVX_COPY) ? { code: readFileSync(id.slice(SRVX_COPY.length), 'utf8'), moduleType: 'js' as const } : null;
  },
};

/**
 * tsdown declares Node's built-ins free of side effects, yet the bundler still writes a bare `import "node:http"`
 * where srvx's adapter imported bindings that tree-shaking dropped: loading node:http for nothing. A bare import of a
 * built-in does nothing else, so it goes.
 */
const dropBareBuiltinImports = {
  name: 'authchart:drop-bare-builtin-imports',
  generateBundle(_options: unknown, bundle: Record<string, { type: string; code?: string; fileName: string; isEntry?: boolean }>) {
    // So is a chunk with no code at all (a module that only re-exports, shared by two entries): one more file to load.
    const empty = new Set(Object.values(bundle).filter((file) => file.type === 'chunk' && !file.isEntry && file.code?.trim() === 'export {};').map((file) => file.fileName));
    for (const file of Object.values(bundle)) {
      if (file.type !== 'chunk' || !file.code) continue;
      file.code = file.code.replace(/^import "node:[\w/]+";\n/gm, '').replace(/^import "((?:\.\.?\/)+)([\w.-]+\.mjs)";\n/gm, (all, _up: string, target: string) => (empty.has(target) ? '' : all));
    }
    for (const fileName of empty) delete bundle[fileName];
  },
};

/**
 * A lazily imported module that sits inside a group chunk (`signin`, `core`) gets a facade file of its own from the
 * bundler: two lines that re-export its names from the group chunk. Every `import()` of it then loads one more file
 * after the chunk, one step of a waterfall each (six on a first credentials sign-in, ~1 ms apiece on Node). So an
 * `import()` of such a facade imports the group chunk itself and hands back the facade's names, read from the chunk
 * when asked, as the facade's live bindings would be (a facade over several chunks imports them together). The facade
 * files stay (nothing else imports them).
 */
const skipDynamicFacades = {
  name: 'authchart:skip-dynamic-facades',
  generateBundle(_options: unknown, bundle: Record<string, { type: string; code?: string; fileName: string; isEntry?: boolean }>) {
    const FACADE = /^((?:import \{ [^}]+ \} from "\.\/[\w.-]+\.mjs";\n)+)export \{ ([^}]+) \};\n?$/;
    const IMPORT = /^import \{ ([^}]+) \} from "\.\/([\w.-]+\.mjs)";$/gm;
    const NAME = /^[A-Za-z_$][\w$]*$/;
    const pairs = (list: string) => list.split(', ').map((spec) => spec.split(' as ') as [string, string?]);
    const chunks = Object.values(bundle).filter((file) => file.type === 'chunk' && file.code !== undefined && !file.fileName.includes('/'));
    /** Each facade's names: the chunk that holds each, and its export name there. */
    const facades = new Map<string, { name: string; file: string; as: string }[]>();
    for (const chunk of chunks) {
      const m = chunk.isEntry ? null : FACADE.exec(chunk.code!);
      if (!m) continue;
      const imported = new Map<string, { file: string; as: string }>();
      for (const [, specs, file] of m[1].matchAll(IMPORT)) for (const [as, local = as] of pairs(specs)) imported.set(local, { file, as });
      const names = pairs(m[2]).map(([local, name = local]) => (imported.has(local) && NAME.test(name) ? { name, ...imported.get(local)! } : undefined));
      if (!names.includes(undefined)) facades.set(chunk.fileName, names as { name: string; file: string; as: string }[]);
    }
    for (const chunk of chunks) {
      // A chunk that imports a facade over itself reads its own bindings (esbuild, bundling the dist for a worker, cannot
      // split a chunk's import() of itself): its export statement names the local binding behind each export name.
      const own = new Map(pairs(/\nexport \{ ([^}]+) \};\s*$/.exec(chunk.code!)?.[1] ?? '').map(([local, as = local]) => [as, local]));
      chunk.code = chunk.code!.replace(/\bimport\("\.\/([\w.-]+\.mjs)"\)/g, (all, target: string) => {
        const names = facades.get(target);
        if (!names || names.some((n) => n.file === chunk.fileName && !own.has(n.as))) return all;
        const files = [...new Set(names.map((n) => n.file).filter((file) => file !== chunk.fileName))];
        const read = (n: { file: string; as: string }) => (n.file === chunk.fileName ? own.get(n.as)! : `m${files.indexOf(n.file)}.${n.as}`);
        const object = `({ ${names.map((n) => `get ${n.name}() { return ${read(n)}; }`).join(', ')} })`;
        if (files.length === 0) return `Promise.resolve(${object})`;
        if (files.length === 1) return `import("./${files[0]}").then((m0) => ${object})`;
        return `Promise.all([${files.map((file) => `import("./${file}")`).join(', ')}]).then(([${files.map((_, i) => `m${i}`).join(', ')}]) => ${object})`;
      });
    }
  },
};

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    node: 'src/node.ts',
    flow: 'src/flow.ts',
    jwt: 'src/jwt.ts',
    'providers/index': 'src/providers/index.ts',
    // One subpath per provider kind (authchart/providers/oidc, ...): an app importing one kind loads none of the others.
    ...Object.fromEntries(PROVIDER_KINDS.map((kind) => [`providers/${kind}`, `src/providers/entries/${kind}.ts`])),
    ...Object.fromEntries(PRESETS.map((name) => [`providers/${name}`, `${PRESET_ENTRY}${name}`])),
    'adapters/index': 'src/adapters/index.ts',
    'adapters/postgres/index': 'src/adapters/postgres/index.ts',
    'devtools/index': 'src/devtools/index.ts',
    'client/index': 'src/client/index.ts',
    // `npx authchart`
    'cli/bin': 'src/cli/bin.ts',
    // What `#srvx` names on Node (package.json "imports"): see the file.
    'srvx-node': 'src/http/srvx-node.ts',
    // srvx's NodeRequest, for authchart/node only: see the file.
    'srvx-node-request': 'src/http/srvx-node-request.ts',
    // What `#srvx` names off Node: the native Response and URL (see the file).
    'srvx-web': 'src/http/srvx-web.ts',
  },
  outDir: 'dist',
  format: 'esm',
  platform: 'node',
  target: 'node20',
  dts: true,
  sourcemap: false,
  clean: true,
  treeshake: true,
  plugins: [presetEntries, srvxCopy, dropBareBuiltinImports, skipDynamicFacades],
  hash: true,
  tsconfig: 'tsconfig.build.json',
  // Small, pure, runtime-neutral ESM dependencies go into the JavaScript (not the declarations: the types stay h3's own,
  // so an app's H3Event is ours): fewer files to resolve and load. srvx stays an import: it resolves per runtime.
  deps: { alwaysBundle: (id, importer) => !!importer && !/\.d\.[cm]?ts$/.test(importer) && (INLINED.test(id) || (id === 'srvx/node' && (importer === SRVX_NODE || importer === SRVX_NODE_REQUEST))) },
  // Higher priority claims a module first: `core`, then `shared`, then `signin` (which takes the rest of its closure),
  // then English, then `pages` (what the pages share).
  // No JSDoc in the JavaScript (the declarations keep it, and annotations like @__PURE__ stay): a fifth of the bytes
  // that a first sign-in's chunks make Node parse, ~1 ms of its CPU (~2 with OIDC) (test/package/dist-cold-path.test.ts).
  outputOptions: (options, _format, { cjsDts }) =>
    cjsDts ? options : { ...options, comments: { jsdoc: false }, paths: { srvx: '#srvx' }, codeSplitting: { groups: [...(['core', 'shared', 'signin', 'english', 'pages'] as const).map((name, i) => ({ priority: 6 - i, name: (id: string, ctx: Context) => (!/\.d\.[cm]?ts$/.test(id) && groupsOf(ctx).get(id) === name ? name : null) })), { priority: 1, name: pageChunk }] } },
});
