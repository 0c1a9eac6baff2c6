// How far one sign-in request travels through the source: the files whose functions run while it is handled and the
// calls that climb back up the layers (core < adapters < session, providers < flows < http). Measured with V8's
// sampling profiler at a 10 µs interval over many credentials sign-ins in process (after a warm-up, so lazy imports
// are done), from the call edges between the frames of src/. Usage: `npx tsx scripts/request-path.ts [rounds]`.
import { Session } from 'node:inspector/promises';
import { fileURLToPath } from 'node:url';
import { relative } from 'node:path';
import { createAuth, Credentials } from '../src/index.js';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));
const rounds = Number(process.argv[2] ?? 400);
const LAYER: Record<string, number> = { core: 0, adapters: 1, session: 2, providers: 2, organizations: 2, activity: 2, flows: 3, http: 4 };

const auth = createAuth(
  {
    secret: 'request-path-secret-0123456789-0123456789',
    trustHost: true,
    providers: [Credentials({ credentials: { email: { type: 'email' }, password: { type: 'password' } }, authorize: ({ email }) => ({ id: String(email), email: String(email) }) })],
  },
  { defaultBasePath: '/auth' },
);

async function signIn(): Promise<void> {
  const csrf = await auth.handle(new Request('http://localhost:3000/auth/csrf'));
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const cookie = (csrf.headers.getSetCookie?.() ?? []).map((c) => c.split(';')[0]).join('; ');
  const res = await auth.handle(
    new Request('http://localhost:3000/auth/callback/credentials', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      body: new URLSearchParams({ csrfToken, email: 'ada@example.com', password: 'x' }),
    }),
  );
  if (res.status !== 302 || String(res.headers.get('location')) !== 'http://localhost:3000') throw new Error(`sign-in answered ${res.status} ${res.headers.get('location')}`);
}

interface Node {
  id: number;
  callFrame: { url: string; functionName: string };
  children?: number[];
}

for (let i = 0; i < 50; i++) await signIn();
const session = new Session();
session.connect();
// The files: exact, from V8's precise coverage over one more sign-in (functions whose call count grew).
interface ScriptCoverage {
  url: string;
  functions: { functionName: string; ranges: { count: number }[] }[];
}
await session.post('Profiler.enable');
await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });
const counts = async () => {
  const { result } = (await session.post('Profiler.takePreciseCoverage')) as { result: ScriptCoverage[] };
  return new Map(result.filter((s) => s.url.startsWith('file://')).map((s) => [s.url, s.functions.reduce((n, f) => n + (f.ranges[0]?.count ?? 0), 0)]));
};
await counts(); // takePreciseCoverage resets the counters
await signIn();
const ran = await counts();
await session.post('Profiler.stopPreciseCoverage');
const exactFiles = [...ran].filter(([url, n]) => n > 0 && url.startsWith(`file://${SRC}`)).map(([url]) => relative(SRC, fileURLToPath(url))).sort();
await session.post('Profiler.enable');
await session.post('Profiler.setSamplingInterval', { interval: 10 });
await session.post('Profiler.start');
for (let i = 0; i < rounds; i++) await signIn();
const { profile } = (await session.post('Profiler.stop')) as { profile: { nodes: Node[] } };
session.disconnect();

const fileOf = (url: string) => {
  if (!url.startsWith('file://')) return undefined;
  const path = fileURLToPath(url);
  return path.startsWith(SRC) ? relative(SRC, path) : undefined;
};
const layerOf = (file: string) => LAYER[file.split('/')[0]!] ?? -1;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const files = new Set<string>();
const climbs = new Set<string>();
// Walk each node with the nearest src/ frame above it (frames of dependencies in between are looked through).
const walk = (node: Node, above: string | undefined) => {
  const file = fileOf(node.callFrame.url);
  let next = above;
  if (file) {
    files.add(file);
    if (above && above !== file && layerOf(file) > layerOf(above)) climbs.add(`${above} -> ${file}`);
    next = file;
  }
  for (const child of node.children ?? []) walk(byId.get(child)!, next);
};
walk(profile.nodes[0]!, undefined);
const descents = new Set<string>();
const seen = (node: Node, above: string | undefined) => {
  const file = fileOf(node.callFrame.url);
  let next = above;
  if (file) {
    if (above?.startsWith('http/') && !file.startsWith('http/')) descents.add(`${above} -> ${file}`);
    next = file;
  }
  for (const child of node.children ?? []) seen(byId.get(child)!, next);
};
seen(profile.nodes[0]!, undefined);
console.log(`files run by one sign-in (exact): ${exactFiles.length}`);
console.log(`calls up the layers (sampled, distinct file pairs): ${climbs.size}`);
console.log(`calls from http/ down to another layer (sampled, distinct file pairs): ${descents.size}`);
console.log(exactFiles.join('\n'));
console.log('-- up');
console.log([...climbs].sort().join('\n'));
console.log('-- down from http');
console.log([...descents].sort().join('\n'));
