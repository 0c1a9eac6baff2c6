// The root entry loads on any runtime with Web APIs plus node:crypto and node:async_hooks (Node, Bun, Deno, workerd
// with nodejs_compat): the static import graph from src/index.ts, dependencies included, reaches no other Node
// builtin. What loads lazily (import()) is left out: a worker loads it only when a Node request arrives.
import { build } from 'esbuild';
import { builtinModules } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The export conditions each runtime resolves packages with (srvx, for one, has a build per runtime). */
const RUNTIMES = {
  workerd: ['workerd', 'worker', 'import', 'default'],
  deno: ['deno', 'import', 'default'],
  bun: ['bun', 'import', 'default'],
  node: ['node', 'import', 'default'],
} as const;

/** Every Node builtin the entry's static import graph reaches on a runtime, with a module that imports it. */
async function staticBuiltins(entry: string, runtime: keyof typeof RUNTIMES = 'workerd'): Promise<Record<string, string>> {
  const { metafile } = await build({
    absWorkingDir: ROOT, entryPoints: [entry], bundle: true, platform: 'neutral', format: 'esm', write: false, metafile: true, logLevel: 'silent', outdir: 'out',
    conditions: [...RUNTIMES[runtime]], mainFields: ['module', 'main'],
    // Node's builtins, and the optional peers (the app's to install; loaded lazily, when configured).
    external: ['node:*', ...builtinModules, 'pg', '@electric-sql/pglite', 'nodemailer', '@simplewebauthn/server', 'mermaid', 'ioredis', 'redis', '@opentelemetry/api'],
  });
  const inputs = metafile.inputs;
  const found: Record<string, string> = {};
  const seen = new Set<string>();
  const stack = [entry];
  while (stack.length > 0) {
    const file = stack.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const imported of inputs[file]?.imports ?? []) {
      if (imported.kind === 'dynamic-import') continue;
      if (imported.external) {
        const name = imported.path.replace(/^node:/, '');
        if (imported.path.startsWith('node:') || builtinModules.includes(name)) found[`node:${name}`] ??= file;
        continue;
      }
      stack.push(imported.path);
    }
  }
  return found;
}

describe('runtime builtins', () => {
  for (const runtime of ['workerd', 'deno', 'bun'] as const) {
    it(`the root entry needs node:crypto and node:async_hooks only (${runtime})`, async () => {
      const builtins = await staticBuiltins('src/index.ts', runtime);
      expect(Object.keys(builtins).sort(), JSON.stringify(builtins)).toEqual(['node:async_hooks', 'node:crypto']);
    }, 60_000);
  }

  it('the walk sees Node builtins where they are (authchart/node reaches node:http)', async () => {
    const builtins = await staticBuiltins('src/node.ts', 'node');
    expect(Object.keys(builtins)).toContain('node:http');
  }, 60_000);

  it('the other entries a worker may load need no more than the root', async () => {
    for (const entry of ['src/providers/index.ts', 'src/client/index.ts', 'src/adapters/index.ts']) {
      const extra = Object.keys(await staticBuiltins(entry)).filter((b) => b !== 'node:crypto' && b !== 'node:async_hooks');
      expect(extra, entry).toEqual([]);
    }
  }, 60_000);
});
