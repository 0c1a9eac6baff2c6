// How the CLI finds the app's configuration: `--config <file>`, else the first of auth.config.{ts,mts,js,mjs} in
// the working directory. The file's default export (or its `config` export) is the AuthConfig, or a function,
// possibly async, that returns it. A TypeScript file is loaded through tsx when Node cannot load it by itself.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AuthConfig } from '../core/options.js';

export const CONFIG_NAMES = ['auth.config.ts', 'auth.config.mts', 'auth.config.js', 'auth.config.mjs'] as const;

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

/** Loads a configuration file and answers the AuthConfig it exports. */
export async function loadConfig(path: string): Promise<AuthConfig> {
  const url = pathToFileURL(path).href;
  let mod: Record<string, unknown>;
  try {
    mod = (await import(url)) as Record<string, unknown>;
  } catch (error) {
    if (!/\.(c|m)?ts$/.test(path) || !isUnknownExtension(error)) throw error;
    mod = await importWithTsx(url);
  }
  let exported = mod.default ?? mod.config;
  if (typeof exported === 'function') exported = await (exported as () => unknown)();
  if (!exported || typeof exported !== 'object' || !Array.isArray((exported as AuthConfig).providers)) {
    throw new Error(`${path} exports no configuration: export default (or export const config) an object with \`providers\`, or a function returning one.`);
  }
  return exported as AuthConfig;
}

function isUnknownExtension(error: unknown): boolean {
  return (error as { code?: string } | null)?.code === 'ERR_UNKNOWN_FILE_EXTENSION';
}

async function importWithTsx(url: string): Promise<Record<string, unknown>> {
  let api: { tsImport: (specifier: string, parent: string) => Promise<unknown> };
  try {
    api = (await import('tsx/esm/api' as string)) as typeof api;
  } catch {
    throw new Error('The configuration is TypeScript: install tsx (npm install -D tsx), run the CLI through it, or point --config at a .js file.');
  }
  return (await api.tsImport(url, import.meta.url)) as Record<string, unknown>;
}
