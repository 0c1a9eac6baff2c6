// How the CLI finds the app's configuration: `--config <file>`, else the first of auth.config.{ts,mts,js,mjs} in
// the working directory. The file exports the AuthConfig as its default export, or as `authConfig` or `config`: the
// object, or a function, possibly async, that returns it. A TypeScript file is loaded by the runtime itself where it
// can (Bun, Deno, Node with type stripping, or the CLI run through tsx); on Node without that, through the app's own
// tsx (an optional peer dependency), resolved from the configuration's folder.
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
  const exportName = CONFIG_EXPORTS.find((name) => mod[name] !== undefined);
  let exported = exportName === undefined ? undefined : mod[exportName];
  if (typeof exported === 'function') exported = await (exported as () => unknown)();
  if (exportName === undefined || !exported || typeof exported !== 'object' || !Array.isArray((exported as AuthConfig).providers)) {
    const found = Object.keys(mod).length === 0 ? 'nothing' : Object.keys(mod).map((k) => `\`${k}\``).join(', ');
    throw new Error(`${basename(path)} exports no configuration (it exports ${found}): export it as \`export default\`, \`export const authConfig\` or \`export const config\`, an object with \`providers\` or a function returning one.`);
  }
  return { config: exported as AuthConfig, exportName };
}

async function importConfig(path: string): Promise<Record<string, unknown>> {
  const url = pathToFileURL(path).href;
  try {
    return (await import(url)) as Record<string, unknown>;
  } catch (error) {
    if (!/\.(c|m)?ts$/.test(path) || !isUnknownExtension(error)) throw error;
  }
  // The runtime does not load TypeScript: the app's tsx does. Found from the configuration's folder (the app), not
  // from this package, and imported by its path, so that no bundler ever inlines it into the CLI. Its ES module API
  // (the CommonJS one imports a file it does not ship when loaded through import()).
  const { tsImport } = (await import(tsxEsmApi(path))) as { tsImport: (specifier: string, parent: string) => Promise<Record<string, unknown>> };
  return tsImport(url, url);
}

/** The file URL of the app's `tsx/esm/api` (its `import` export), resolved from `from`. */
function tsxEsmApi(from: string): string {
  let manifest: string;
  try {
    manifest = createRequire(from).resolve('tsx/package.json');
  } catch {
    throw new Error(`${basename(from)} is TypeScript and this Node does not load TypeScript by itself: install tsx in the app (npm install --save-dev tsx), or point --config at a .js file.`);
  }
  const { exports } = JSON.parse(readFileSync(manifest, 'utf8')) as { exports: Record<string, { import?: { default?: string } | string }> };
  const entry = exports['./esm/api']?.import;
  const file = typeof entry === 'string' ? entry : entry?.default;
  if (!file) throw new Error(`The tsx at ${dirname(manifest)} has no ES module API (tsx/esm/api): install tsx 4 or later.`);
  return pathToFileURL(join(dirname(manifest), file)).href;
}

function isUnknownExtension(error: unknown): boolean {
  return (error as { code?: string } | null)?.code === 'ERR_UNKNOWN_FILE_EXTENSION';
}
