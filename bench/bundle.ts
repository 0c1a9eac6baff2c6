// Benchmark 6: what an app ships for credentials + one OAuth provider (GitHub), bundled by esbuild (minified ESM,
// Node built-ins external) and gzipped: authchart's public entries, from the installed tarball (./built.ts) as an
// app's bundler finds them, against @auth/core's.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type Metafile } from 'esbuild';
import { installedApp } from './built.js';
import { NOT_INSTALLED } from './measure.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BENCH = fileURLToPath(new URL('.', import.meta.url));

export const BUNDLE_SIDES = ['authchart', 'Auth.js'] as const;
export type BundleSide = (typeof BUNDLE_SIDES)[number];

/** The import an app writes, as an esbuild entry. */
const ENTRIES: Record<BundleSide, { contents: string; resolveDir: string }> = {
  authchart: {
    contents: `export { AuthInit, Credentials } from 'authchart';\nexport { default as GitHub } from 'authchart/providers/github';\n`,
    // The app folder the tarball is installed in: no tsconfig there sends 'authchart' to the sources.
    get resolveDir() {
      return installedApp();
    },
  },
  'Auth.js': {
    contents: `export { Auth } from '@auth/core';\nexport { default as Credentials } from '@auth/core/providers/credentials';\nexport { default as GitHub } from '@auth/core/providers/github';\n`,
    resolveDir: BENCH,
  },
};

// Optional peers that only e-mail, WebAuthn and database users install; an app with credentials + OAuth never
// loads them, so they are left out rather than counted.
const OPTIONAL_PEERS = ['@simplewebauthn/server', '@simplewebauthn/server/*', 'nodemailer', 'pg', '@electric-sql/pglite'];

export interface BundleFigures {
  /** What the app loads at start: the entry chunk and every chunk it imports statically. */
  minifiedBytes: number;
  gzipBytes: number;
  /** Chunks loaded only on first use (`import()`): flows of providers the app does not have, devtools. */
  lazyGzipBytes: number;
  /** What is loaded once this app has signed someone in with each of its providers from the built-in page: start + the flow layer and runtime + their flows + the pages. */
  inUseGzipBytes: number;
  /** Largest contributors (by package), minified bytes. */
  largest: { name: string; bytes: number }[];
  /** The provider presets that made it into the bundle: only the ones imported, if the rest tree-shake away. */
  presets: string[];
}

export type BundleResult = Record<BundleSide, BundleFigures | { skipped: string }>;

function packageOf(path: string): string {
  // authchart's own chunks by name (h3, rou3 and xstate are bundled into them): `authchart core`, `authchart srvx-node`.
  const chunk = /node_modules\/authchart\/dist\/(.+?)(?:-[\w-]{8})?\.mjs$/.exec(path);
  if (chunk) return `authchart ${chunk[1]}`;
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  return m ? m[1] : '(own code)';
}

/** The output files the entry loads at start: the entry chunk and, transitively, the chunks it imports statically. */
function eagerOutputs(metafile: Metafile, entryName: string, alsoLoaded: readonly string[] = []): Set<string> {
  // Found by name (esbuild gives it relative to the working directory): the chunks split at dynamic imports have
  // entry points of their own, in no fixed order.
  const isEntry = (point: string | undefined, name: string) => point === name || point?.endsWith(`/${name}`) === true;
  const entries = [entryName, ...alsoLoaded].flatMap((name) => Object.keys(metafile.outputs).filter((path) => isEntry(metafile.outputs[path].entryPoint, name)));
  const eager = new Set<string>();
  const visit = (path: string) => {
    if (eager.has(path) || !metafile.outputs[path]) return;
    eager.add(path);
    for (const imported of metafile.outputs[path].imports) if (imported.kind === 'import-statement' && !imported.external) visit(imported.path);
  };
  for (const entry of entries) visit(entry);
  return eager;
}

function largest(metafile: Metafile, eager: Set<string>): { name: string; bytes: number }[] {
  const byPackage = new Map<string, number>();
  for (const [file, output] of Object.entries(metafile.outputs)) {
    if (!eager.has(file)) continue;
    for (const [path, { bytesInOutput }] of Object.entries(output.inputs)) {
      const name = packageOf(path);
      byPackage.set(name, (byPackage.get(name) ?? 0) + bytesInOutput);
    }
  }
  return [...byPackage].map(([name, bytes]) => ({ name, bytes })).sort((a, b) => b.bytes - a.bytes).slice(0, 6);
}

// A provider module of either side: authchart's catalogue entries, @auth/core's providers/*.js.
const PRESET = /(?:authchart\/dist\/providers|@auth\/core\/providers)\/([a-z0-9-]+)\.(?:mjs|js)$/;

function presetsOf(metafile: Metafile, eager: Set<string>): string[] {
  const names = new Set<string>();
  for (const [file, output] of Object.entries(metafile.outputs)) {
    if (!eager.has(file)) continue;
    for (const [path, { bytesInOutput }] of Object.entries(output.inputs)) {
      const name = PRESET.exec(path)?.[1];
      if (name && name !== 'index' && bytesInOutput > 0) names.add(name);
    }
  }
  return [...names].sort();
}

/** The installed dist's chunks that hold these source modules (the build marks each module's region in its chunk). */
function chunksHolding(app: string, sources: string[]): string[] {
  const dist = join(app, 'node_modules', 'authchart', 'dist');
  const files = readdirSync(dist).filter((file) => file.endsWith('.mjs'));
  return sources.map((source) => {
    const file = files.find((f) => readFileSync(join(dist, f), 'utf8').includes(`//#region ${source}\n`));
    if (!file) throw new Error(`no chunk of the installed dist holds ${source}`);
    return `authchart/dist/${file}`;
  });
}

async function bundle(side: BundleSide): Promise<BundleFigures> {
  const { contents, resolveDir } = ENTRIES[side];
  const out = await build({
    stdin: { contents, resolveDir, loader: 'ts', sourcefile: `${side}-entry.ts` },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: OPTIONAL_PEERS,
    // Split at dynamic imports, as an app's bundler does: what loads lazily is counted apart.
    splitting: true,
    outdir: join(BENCH, '.bundle'),
    write: false,
    metafile: true,
    logLevel: 'silent',
    legalComments: 'none',
  });
  const eager = eagerOutputs(out.metafile, `${side}-entry.ts`);
  const relative = (path: string) => path.slice(ROOT.length).replace(/^\/+/, '');
  const isEager = (path: string) => [...eager].some((e) => path.endsWith(e) || relative(path) === e);
  const eagerCode = Buffer.concat(out.outputFiles.filter((f) => isEager(f.path)).map((f) => f.contents));
  // The flow modules a credentials + OAuth app loads on its first sign-ins (authchart's; Auth.js loads all at start).
  // authchart's: the flow layer and runtime, both flows, and the built-in pages the browser signed in from (pages/index.ts
  // is a barrel with no code of its own: its chunk is found by the sign-in page's module).
  const inUse = eagerOutputs(out.metafile, `${side}-entry.ts`, side === 'authchart' ? chunksHolding(resolveDir, ['src/http/flow.ts', 'src/http/pages/signin.ts', 'src/flows/runtime/flow.ts', 'src/flows/credentials/machine.ts', 'src/flows/oauth/machine.ts']) : []);
  const inUseCode = Buffer.concat(out.outputFiles.filter((f) => [...inUse].some((e) => f.path.endsWith(e) || relative(f.path) === e)).map((f) => f.contents));
  const lazyCode = Buffer.concat(out.outputFiles.filter((f) => !isEager(f.path)).map((f) => f.contents));
  return {
    minifiedBytes: eagerCode.byteLength,
    gzipBytes: gzipSync(eagerCode, { level: 9 }).byteLength,
    lazyGzipBytes: lazyCode.byteLength ? gzipSync(lazyCode, { level: 9 }).byteLength : 0,
    inUseGzipBytes: gzipSync(inUseCode, { level: 9 }).byteLength,
    largest: largest(out.metafile, eager),
    presets: presetsOf(out.metafile, eager),
  };
}

/**
 * Bundles both sides. Sizes are deterministic, so one build each is the whole measurement.
 *
 * @example
 * const { authchart } = await benchBundle()
 */
export async function benchBundle(): Promise<BundleResult> {
  const authjsInstalled = existsSync(join(BENCH, 'node_modules', '@auth', 'core', 'package.json'));
  return {
    authchart: await bundle('authchart'),
    'Auth.js': authjsInstalled ? await bundle('Auth.js') : { skipped: NOT_INSTALLED },
  };
}
