// The layering DESIGN.md promises, checked on the source: imports run http -> flows -> providers/session/adapters
// -> core, devtools stay off the sign-in path, and there are no import loops, type-only imports included.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** The relative imports and re-exports of a file (static and type-only; with `dynamic`, `import()` too), as paths below src/. */
function importsOf(file: string, dynamic = true): string[] {
  const text = readFileSync(file, 'utf8');
  const statics = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]/g)];
  const lazies = dynamic ? [...text.matchAll(/import\(\s*['"](\.[^'"]+)['"]\s*\)/g)] : [];
  return [...statics, ...lazies].map((m) => relative(SRC, normalize(join(dirname(file), m[1]))).replace(/\.js$/, '.ts'));
}

const files = sourceFiles(SRC).map((f) => relative(SRC, f));
const graph = new Map(files.map((f) => [f, importsOf(join(SRC, f)).filter((t) => files.includes(t))]));
/** Static imports only: a layer may load the development tools on first use (http -> devtools), never import them. */
const staticGraph = new Map(files.map((f) => [f, importsOf(join(SRC, f), false).filter((t) => files.includes(t))]));
const layerOf = (file: string) => file.split('/')[0].replace(/\.ts$/, '');
/** Data shapes every layer may name (they import only core): the SSO types, the `sso` option, the activity record. */
const SHARED_TYPES = new Set(['sso/types.ts', 'sso/options.ts', 'activity/types.ts']);

/** Which top-level folders each layer may import (itself always). */
const ALLOWED: Record<string, string[]> = {
  core: [],
  adapters: ['core'],
  // The security activity log and the webhook outbox: records built from a request, written through the adapter and
  // the sinks; the deliverer.
  activity: ['core', 'adapters'],
  session: ['core', 'adapters', 'activity'],
  providers: ['core', 'adapters'],
  // Organizations: data and checks on permissions, and the gate that reads a membership beside the session.
  organizations: ['core', 'adapters', 'session', 'activity'],
  // flows -> sso: the runtime joins an SSO sign-in to its organization once the session is issued.
  flows: ['core', 'adapters', 'session', 'providers', 'organizations', 'sso', 'activity'],
  // Enterprise SSO: connections and verified domains (data and checks), the OIDC connection as a provider.
  sso: ['core', 'adapters', 'session', 'providers', 'organizations'],
  http: ['core', 'adapters', 'session', 'providers', 'flows', 'organizations', 'sso', 'activity'],
  client: [],
  devtools: ['core', 'adapters', 'session', 'providers', 'flows', 'http', 'organizations', 'sso', 'activity'],
  index: ['core', 'adapters', 'session', 'providers', 'flows', 'http', 'organizations', 'sso', 'activity'],
  node: ['http'],
  cli: ['core', 'adapters', 'session', 'providers', 'flows', 'http', 'devtools', 'organizations', 'activity'],
  // The subpath entries: authchart/flow (the flow kit, with testFlow from devtools, and the session's TokenSpend that a
  // flow's output names) and authchart/jwt.
  flow: ['core', 'session', 'flows', 'devtools'],
  jwt: ['core', 'session'],
};

describe('layers', () => {
  it('every import runs down the layers', () => {
    const wrong: string[] = [];
    for (const [file, targets] of staticGraph) {
      const from = layerOf(file);
      for (const target of targets) {
        const to = layerOf(target);
        if (to !== from && !(ALLOWED[from] ?? []).includes(to) && !SHARED_TYPES.has(target)) wrong.push(`${file} -> ${target}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('nothing on the sign-in path imports the development tools, except lazily', () => {
    const wrong = [...graph].flatMap(([file]) => {
      // authchart/flow is an entry an app's tests import, never loaded by a sign-in.
      if (layerOf(file) === 'devtools' || layerOf(file) === 'cli' || file === 'index.ts' || file === 'flow.ts') return [];
      const text = readFileSync(join(SRC, file), 'utf8');
      return /(?:import|export)\s[^'"]*?from\s+['"][^'"]*devtools\//.test(text) ? [file] : [];
    });
    expect(wrong).toEqual([]);
  });

  it('has no import loops', () => {
    const loops: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const stack: string[] = [];
    const visit = (file: string) => {
      state.set(file, 'open');
      stack.push(file);
      for (const next of graph.get(file) ?? []) {
        if (state.get(next) === 'open') loops.push([...stack.slice(stack.indexOf(next)), next].join(' -> '));
        else if (!state.has(next)) visit(next);
      }
      stack.pop();
      state.set(file, 'done');
    };
    for (const file of files) if (!state.has(file)) visit(file);
    expect(loops).toEqual([]);
  });

  it('the flow folders import one another without a loop, and the runtime imports no specific flow', () => {
    // A flow folder: `flows/<name>/`; the registry (`flows/registry.ts`) is one of its own.
    const folderOf = (file: string) => (file.startsWith('flows/') ? (file.split('/').length > 2 ? file.split('/')[1] : '(registry)') : undefined);
    const edges = new Map<string, Set<string>>();
    for (const [file, targets] of graph) {
      const from = folderOf(file);
      if (!from) continue;
      for (const target of targets) {
        const to = folderOf(target);
        if (to && to !== from) edges.set(from, new Set([...(edges.get(from) ?? []), to]));
      }
    }
    const loops: string[] = [];
    const walk = (folder: string, path: string[]) => {
      for (const next of edges.get(folder) ?? []) {
        if (path.includes(next)) loops.push([...path.slice(path.indexOf(next)), next].join(' -> '));
        else walk(next, [...path, next]);
      }
    };
    for (const folder of edges.keys()) walk(folder, [folder]);
    expect(loops).toEqual([]);
    expect([...(edges.get('runtime') ?? [])]).toEqual([]);
    // The tail holds no second-factor state: it does not even know the machine.
    expect(edges.get('signin')?.has('second-factor') ?? false).toBe(false);
  });

  it('http/ reaches the flows only through the runtime\'s public face and the registry', () => {
    // The door (step, from the registry), the public contracts (a flow's, a stage's, a signed-in flow's, a job's),
    // and the run records the inspector reads. Never a flow folder's internals, never the runtime's cookie or driver.
    const publicFace = new Set([
      'flows/registry.ts',
      'flows/runtime/contract.ts',
      'flows/runtime/stage.ts',
      'flows/runtime/signed-in.ts',
      'flows/runtime/log.ts',
      'flows/runtime/record.ts',
      'flows/runtime/flow-id.ts',
      'flows/runtime/trace.ts',
    ]);
    const wrong = [...graph].flatMap(([file, targets]) =>
      file.startsWith('http/') ? targets.filter((t) => t.startsWith('flows/') && !publicFace.has(t) && !t.startsWith('flows/runtime/observe/')).map((t) => `${file} -> ${t}`) : [],
    );
    expect(wrong).toEqual([]);
  });

  it('casts no FlowDeps by hand outside the runtime', () => {
    const wrong = files.filter((f) => !f.startsWith('flows/runtime/') && /\bas\s+FlowDeps\b/.test(readFileSync(join(SRC, f), 'utf8')));
    expect(wrong).toEqual([]);
  });

  it('has one slot API: only the runtime seals, opens or clears a paused machine, and nothing else seals its own', () => {
    // The cookie module is the runtime's own; outside it, only the door's files use it.
    const cookieUsers = [...graph].filter(([, targets]) => targets.includes('flows/runtime/cookie.ts')).map(([f]) => f).sort();
    expect(cookieUsers.every((f) => f.startsWith('flows/runtime/'))).toBe(true);
    const sealers = files.filter((f) => /\bsealFlow\(/.test(readFileSync(join(SRC, f), 'utf8'))).sort();
    expect(sealers).toEqual(['flows/runtime/cookie.ts', 'flows/runtime/door.ts']);
    // The HTTP layer encrypts no state of its own (a provider logout once had its own JWE seal).
    const httpSealing = [...graph].filter(([f, targets]) => f.startsWith('http/') && targets.some((t) => t === 'session/jwe.ts' || t === 'session/keys.ts')).map(([f]) => f);
    expect(httpSealing).toEqual([]);
  });

  it('uses no private XState fields', () => {
    // `_nodes` (a snapshot's active nodes) and `_transitions` (a microstep's transitions) are not XState's public API.
    const wrong = files.filter((f) => /\b_(nodes|transitions)\b/.test(readFileSync(join(SRC, f), 'utf8')));
    expect(wrong).toEqual([]);
  });
});
