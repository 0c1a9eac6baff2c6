// Serves authchart/client to the demo's pages as browser modules at /_client/<file>.js. The demo runs from the
// sources, so each file of src/client/ is transpiled on first request (TypeScript strips the types) and kept; an app
// would bundle `authchart/client` from the package instead.
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { HTTPError, getRouterParam, type EventHandler } from 'h3';

const clientDir = fileURLToPath(new URL('../../src/client/', import.meta.url));
const compiled = new Map<string, Promise<string>>();

async function transpile(file: string): Promise<string> {
  const { default: ts } = await import('typescript');
  const source = await readFile(`${clientDir}${file}.ts`, 'utf8');
  return ts.transpileModule(source, { compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ES2022 } }).outputText;
}

/** The h3 handler for `/_client/:file`; only the client's own files are served, by exact name. */
export function clientAssets(): EventHandler {
  const names = readdir(clientDir).then((files) => new Set(files.filter((f) => f.endsWith('.ts')).map((f) => f.slice(0, -3))));
  return async (event) => {
    const file = (getRouterParam(event, 'file') ?? '').replace(/\.js$/, '');
    if (!(await names).has(file)) throw new HTTPError({ status: 404, message: 'No such client module.' });
    let code = compiled.get(file);
    if (!code) {
      code = transpile(file);
      compiled.set(file, code);
      code.catch(() => compiled.delete(file));
    }
    return new Response(await code, { headers: { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-cache' } });
  };
}
