// Benchmark 6: what an app ships for credentials + one OAuth provider (GitHub), bundled by esbuild (minified ESM,
// Node built-ins external) and gzipped: authchart's public entries, from the installed tarball (./built.ts) as an
// app's bundler finds them, against @auth/core's.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type BuildOptions, type Metafile, type OutputFile, type Plugin } from 'esbuild';
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
  /** authchart only: each optional feature's bytes, in the start bundle of this app (which does not use it) and loaded once used. */
  features?: FeatureBytes[];
}

/** What one optional feature costs an app: nothing at start when unused, its chunks once used. */
export interface FeatureBytes {
  name: string;
  /** Minified bytes of the feature's modules in the start bundle of the credentials + GitHub app, which does not use it. */
  startBytes: number;
  /** Gzipped bytes that the feature's chunks add to the signed-in bundle once an app uses it. */
  whenUsedGzipBytes: number;
}

/**
 * The optional features: the source modules that are theirs alone, and what an app adds to its imports to use one (the
 * rest is configuration, which loads the feature's chunks on first use). An app that does not use a feature should ship
 * none of its code at start.
 */
export const FEATURES: readonly { name: string; modules: RegExp; imports?: string }[] = [
  { name: 'password accounts', modules: /^src\/(providers\/password\/|flows\/password\/|http\/pages\/(signup|form)\.ts$)/, imports: `export { Password } from 'authchart';` },
  { name: 'organizations', modules: /^src\/(organizations\/|flows\/organizations\/|http\/(routes\/(organizations|invitations)|organizations-page)\.ts$)/, imports: `export { requireOrganization } from 'authchart';` },
  { name: 'activity log', modules: /^src\/(activity\/(?!webhook-)|http\/integrations\/activity-helpers\.ts$)/, imports: `export { listActivity } from 'authchart';` },
  { name: 'webhooks', modules: /^src\/activity\/webhook-/, imports: `export { webhookSink, startWebhookDelivery } from 'authchart';` },
  { name: 'session list and revocation', modules: /^src\/(session\/session-control\.ts|http\/routes\/sessions\.ts|http\/integrations\/session-control\.ts)$/, imports: `export { listSessions, revokeSession } from 'authchart';` },
  { name: 'account page', modules: /^src\/(http\/account[^/]*\.ts|flows\/account\/)/ },
  { name: 'passkeys (WebAuthn)', modules: /^src\/(flows\/webauthn\/|providers\/webauthn\.ts$|http\/(routes\/webauthn|webauthn-script)\.ts$)/, imports: `export { Passkey } from 'authchart/providers/webauthn';` },
  { name: 'e-mail links', modules: /^src\/(flows\/email\/|providers\/email\.ts$|core\/mail-transport\.ts$)/, imports: `export { Email } from 'authchart/providers/email';` },
  { name: 'second factor', modules: /^src\/flows\/second-factor\// },
  { name: 'enterprise SSO', modules: /^src\/(sso\/|flows\/saml\/|http\/(routes\/sso|sso-page)\.ts$)/ },
  { name: 'flow inspector (development)', modules: /^src\/(devtools\/|http\/inspect-trace\.ts$)/ },
];

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
  return staticClosure(metafile, entries);
}

/** `starts` and every output they import statically, transitively, added to `into`. */
function staticClosure(metafile: Metafile, starts: readonly string[], into = new Set<string>()): Set<string> {
  const visit = (path: string) => {
    if (into.has(path) || !metafile.outputs[path]) return;
    into.add(path);
    for (const imported of metafile.outputs[path].imports) if (imported.kind === 'import-statement' && !imported.external) visit(imported.path);
  };
  for (const start of starts) visit(start);
  return into;
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
function chunksHolding(regions: Map<string, string[]>, sources: string[]): string[] {
  return sources.map((source) => {
    const held = [...regions].find(([, modules]) => modules.includes(source));
    if (!held) throw new Error(`no chunk of the installed dist holds ${source}`);
    return held[0];
  });
}

/** The source modules in each chunk of the installed dist, by the regions the build marks (`//#region src/...`). */
function regionsByChunk(app: string): Map<string, string[]> {
  const dist = join(app, 'node_modules', 'authchart', 'dist');
  const chunks = new Map<string, string[]>();
  for (const file of readdirSync(dist).filter((f) => f.endsWith('.mjs'))) {
    chunks.set(`authchart/dist/${file}`, [...readFileSync(join(dist, file), 'utf8').matchAll(/^\/\/#region (src\/\S+)$/gm)].map((m) => m[1]));
  }
  return chunks;
}

const REGION = /^\/\/#region (src\/\S+)\n([\s\S]*?)^\/\/#endregion\n/gm;
const DECLARED = /^(?:async )?function\*? ?([\w$]+)|^(?:const|let|var|class) ([\w$]+)/gm;

/**
 * An esbuild plugin that loads the installed dist with the regions of `modules` emptied: each keeps only a `var` for
 * every name it declared, so the chunk's exports and the other regions' references still resolve. What the bundle
 * loses then is what those modules put in it.
 */
function withoutModules(modules: RegExp): Plugin {
  return {
    name: 'bench:without-modules',
    setup(b) {
      b.onLoad({ filter: /[\\/]authchart[\\/]dist[\\/].+\.mjs$/ }, (args) => ({
        loader: 'js',
        contents: readFileSync(args.path, 'utf8').replace(REGION, (all, source: string, body: string) => {
          if (!modules.test(source)) return all;
          const names = [...body.matchAll(DECLARED)].map((m) => m[1] ?? m[2]);
          return names.length ? `var ${names.join(', ')};\n` : '';
        }),
      }));
    },
  };
}

/** One build of an app: what it loads at start, and once signed in with each provider. */
interface Built {
  metafile: Metafile;
  outputFiles: OutputFile[];
  eager: Set<string>;
  inUse: Set<string>;
}

/**
 * Each optional feature's bytes, in the start bundle of the app without it (the start bundle built again with the
 * feature's modules emptied: the difference), and what using it adds to the signed-in bundle: the app built again
 * with the feature's imports, its signed-in outputs, the outputs that hold a chunk with one of the feature's modules
 * and what they import, gzipped together, less the signed-in bundle without it.
 */
async function featureBytes(regions: Map<string, string[]>, base: Built, build: (extra: { imports?: string; emptied?: RegExp }) => Promise<Built>, gzipOf: (built: Built, files: Set<string>) => number): Promise<FeatureBytes[]> {
  const signedIn = gzipOf(base, base.inUse);
  const startBytes = contentsOf(base.outputFiles, base.eager).byteLength;
  const out: FeatureBytes[] = [];
  for (const { name, modules, imports } of FEATURES) {
    const emptied = await build({ emptied: modules });
    const using = imports ? await build({ imports }) : base;
    const chunks = [...regions].filter(([, sources]) => sources.some((source) => modules.test(source))).map(([chunk]) => chunk);
    const { outputs } = using.metafile;
    const holding = Object.keys(outputs).filter((output) => Object.entries(outputs[output].inputs).some(([path, { bytesInOutput }]) => bytesInOutput > 0 && chunks.some((chunk) => path.endsWith(chunk))));
    const used = staticClosure(using.metafile, holding, new Set(using.inUse));
    out.push({ name, startBytes: startBytes - contentsOf(emptied.outputFiles, emptied.eager).byteLength, whenUsedGzipBytes: gzipOf(using, used) - signedIn });
  }
  return out;
}

/** Whether an output file is one of a set of metafile output paths (esbuild gives those relative to the working directory). */
function named(files: Set<string>): (file: OutputFile) => boolean {
  const relative = (path: string) => path.slice(ROOT.length).replace(/^\/+/, '');
  return (file) => [...files].some((e) => file.path.endsWith(e) || relative(file.path) === e);
}

/** The contents of the output files a set of metafile output paths names. */
function contentsOf(outputFiles: OutputFile[], files: Set<string>): Buffer {
  return Buffer.concat(outputFiles.filter(named(files)).map((f) => f.contents));
}

async function bundle(side: BundleSide): Promise<BundleFigures> {
  const { contents, resolveDir } = ENTRIES[side];
  const entry = `${side}-entry.ts`;
  // The flow modules a credentials + OAuth app loads on its first sign-ins (authchart's; Auth.js loads all at start):
  // the flow layer and runtime, both flows, and the built-in page the browser signed in from.
  const regions = side === 'authchart' ? regionsByChunk(resolveDir) : new Map<string, string[]>();
  const signInChunks = side === 'authchart' ? chunksHolding(regions, ['src/http/flow.ts', 'src/http/pages/signin.ts', 'src/flows/runtime/flow.ts', 'src/flows/credentials/machine.ts', 'src/flows/oauth/machine.ts']) : [];
  const app = async ({ imports, emptied }: { imports?: string; emptied?: RegExp } = {}): Promise<Built> => {
    const out = await build({
      stdin: { contents: imports ? `${contents}${imports}\n` : contents, resolveDir, loader: 'ts', sourcefile: entry },
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
      plugins: emptied ? [withoutModules(emptied)] : [],
    });
    return { metafile: out.metafile, outputFiles: out.outputFiles, eager: eagerOutputs(out.metafile, entry), inUse: eagerOutputs(out.metafile, entry, signInChunks) };
  };
  const built = await app();
  const eagerCode = contentsOf(built.outputFiles, built.eager);
  const isEager = named(built.eager);
  const lazyCode = Buffer.concat(built.outputFiles.filter((f) => !isEager(f)).map((f) => f.contents));
  const gzip = (code: Buffer) => gzipSync(code, { level: 9 }).byteLength;
  return {
    minifiedBytes: eagerCode.byteLength,
    gzipBytes: gzip(eagerCode),
    lazyGzipBytes: lazyCode.byteLength ? gzip(lazyCode) : 0,
    inUseGzipBytes: gzip(contentsOf(built.outputFiles, built.inUse)),
    largest: largest(built.metafile, built.eager),
    presets: presetsOf(built.metafile, built.eager),
    ...(side === 'authchart' ? { features: await featureBytes(regions, built, app, (b, files) => gzip(contentsOf(b.outputFiles, files))) } : {}),
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
