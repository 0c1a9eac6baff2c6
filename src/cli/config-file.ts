// How the CLI finds the app's configuration: `--config <file>`, else the first of auth.config.{ts,mts,js,mjs} in
// the working directory. The file exports the AuthConfig as its default export, or as `authConfig` or `config`: the
// object, or a function, possibly async, that returns it. A TypeScript file is loaded by the runtime itself where it
// can (Bun, Deno, Node with type stripping, or the CLI run through tsx); on Node without that, through the app's own
// tsx (an optional peer dependency), else the jiti that Nitro and Nuxt install, resolved from the configuration's
// folder.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AuthConfig } from '../core/options.js';

export const CONFIG_NAMES = ['auth.config.ts', 'auth.config.mts', 'auth.config.js', 'auth.config.mjs'] as const;
/** The exports read, in this order. */
export const CONFIG_EXPORTS = ['default', 'authConfig', 'config'] as const;

/** A loaded configuration and the export it came from. */
export interface LoadedConfig {
  config: AuthConfig;
  exportName: (typeof CONFIG_EXPORTS)[number];
}

/** The configuration file to load: the one given, else the first default name found in `cwd`. */
export function findConfigFile(given: string | undefined, cwd: string): string {
  if (given !== undefined) {
    const path = resolve(cwd, given);
    if (!existsSync(path)) throw new Error(`No configuration file at ${path}.`);
    return path;
  }
  for (const name of CONFIG_NAMES) {
    const path = resolve(cwd, name);
    if (existsSync(path)) return path;
  }
  throw new Error(`No configuration found: pass --config <file>, or put one of ${CONFIG_NAMES.join(', ')} in ${cwd}.`);
}

/** Loads a configuration file and answers the AuthConfig it exports, with the export's name. */
export async function loadConfig(path: string): Promise<LoadedConfig> {
  const mod = await importConfig(path);
  // The first of the exports that is a configuration (a loader's interop may add a `default` that is the namespace).
  for (const exportName of CONFIG_EXPORTS) {
    let exported = mod[exportName];
    if (typeof exported === 'function') exported = await (exported as () => unknown)();
    if (exported && typeof exported === 'object' && Array.isArray((exported as AuthConfig).providers)) return { config: exported as AuthConfig, exportName };
  }
  const found = Object.keys(mod).length === 0 ? 'nothing' : Object.keys(mod).map((k) => `\`${k}\``).join(', ');
  throw new Error(`${basename(path)} exports no configuration (it exports ${found}): export it as \`export default\`, \`export const authConfig\` or \`export const config\`, an object with \`providers\` or a function returning one.`);
}

async function importConfig(path: string): Promise<Record<string, unknown>> {
  const url = pathToFileURL(path).href;
  try {
    return (await import(url)) as Record<string, unknown>;
  } catch (error) {
    if (!/\.(c|m)?ts$/.test(path) || !isUnknownExtension(error)) throw error;
  }
  // The runtime does not load TypeScript: the app's tsx does, else the jiti its framework brought (Nitro, Nuxt).
  // Found from the configuration's folder (the app), not from this package, and imported by path, so that no bundler
  // ever inlines them into the CLI; their ES module entries (tsx's CommonJS API cannot be loaded through import()).
  const tsx = esmEntry(path, 'tsx', './esm/api');
  if (tsx) {
    const { tsImport } = (await import(tsx)) as { tsImport: (specifier: string, parent: string) => Promise<Record<string, unknown>> };
    return tsImport(url, url);
  }
  const jiti = esmEntry(path, 'jiti', '.');
  if (jiti) {
    const { createJiti } = (await import(jiti)) as { createJiti: (parent: string) => { import: (id: string) => Promise<Record<string, unknown>> } };
    return createJiti(url).import(path);
  }
  throw new Error(`${basename(path)} is TypeScript and this Node does not load TypeScript by itself: install tsx in the app (npm install --save-dev tsx), or point --config at a .js file.`);
}

/** The file URL of a package's ES module export `subpath` (its `import` condition), resolved from `from`; null when absent. */
function esmEntry(from: string, name: string, subpath: string): string | null {
  let manifest: string;
  try {
    manifest = createRequire(from).resolve(`${name}/package.json`);
  } catch {
    return null;
  }
  const { exports } = JSON.parse(readFileSync(manifest, 'utf8')) as { exports?: Record<string, { import?: { default?: string } | string }> };
  const entry = exports?.[subpath]?.import;
  const file = typeof entry === 'string' ? entry : entry?.default;
  return file ? pathToFileURL(join(dirname(manifest), file)).href : null;
}

function isUnknownExtension(error: unknown): boolean {
  return (error as { code?: string } | null)?.code === 'ERR_UNKNOWN_FILE_EXTENSION';
}
