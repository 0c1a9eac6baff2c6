// What a fresh process of the installed tarball loaded, read from the log that cold-path-hooks.mjs wrote: the dist
// files (relative to dist/), every module they hold (the `//#region src/...` markers the bundler writes for each
// module it puts into a chunk, as `/src/...`) and every other module loaded (`/node_modules/...`), and the Node
// built-ins. Shared by the packed-build checks that count what a first request or an import loads.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface LoadedModules {
  /** The Node built-ins loaded (`node:http`, ...). */
  builtins: string[];
  /** The dist files loaded, relative to dist/. */
  files: string[];
  /** Every module the loaded dist files hold (`/src/...`), and every other module loaded (`/node_modules/...`). */
  modules: string[];
}

/** Reads `log` (one URL a line) for the app installed in `dir`. */
export function loadedModules(dir: string, log: string): LoadedModules {
  const lines = readFileSync(log, 'utf8').split('\n');
  const paths = lines.filter((url) => url.startsWith('file:')).map((url) => fileURLToPath(url));
  const dist = `${dir}/node_modules/authchart/dist/`;
  const files = paths.filter((path) => path.startsWith(dist)).map((path) => path.slice(dist.length));
  // A preset subpath's copy of its preset (tsdown.config.ts) is named after the preset's source.
  const regions = files.flatMap((file) =>
    [...readFileSync(join(dist, file), 'utf8').matchAll(/^\/\/#region (?:(src\/\S+)|\\0authchart-preset:([\w-]+))$/gm)].map((m) => (m[1] ? `/${m[1]}` : `/src/providers/catalogue/${m[2]}.ts`)),
  );
  const others = paths.filter((path) => !path.startsWith(dist) && path.includes('/node_modules/')).map((path) => path.slice(path.lastIndexOf('/node_modules/')));
  return { files, modules: [...regions, ...others], builtins: lines.filter((url) => url.startsWith('node:')) };
}
