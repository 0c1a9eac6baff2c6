// GET {basePath}/_inspect, /_inspect/:id and /_inspect/mermaid.js: the development inspector. The routes exist
// only with `debug: true` outside production (app.ts registers them then), and each checks again per request.
import { UnknownAction } from '../core/errors.js';
import { FLOW_LOG_SIZE, tracesKept } from '../flows/runtime/log.js';
import { INSPECT_SEGMENT, visibleFlow, visibleFlows } from '../http/inspect-trace.js';
import { renderInspectFlow, renderInspectList, renderInspectMissing, type InspectPageContext } from './inspect-page.js';
import { pageNonce, type AuthRequest } from '../http/request.js';
import { html } from '../http/response.js';
import { AuthResponse } from '../core/fast-response.js';

let bundle: { path: string | null; bytes?: Uint8Array<ArrayBuffer> } | undefined;

// node:fs and node:module through process.getBuiltinModule, not static imports: a worker bundle that inlines this
// lazily loaded module would otherwise need them at start (workerd before 2025-09 has no node:fs). Where a runtime
// lacks them, the inspector draws without the Mermaid bundle.
type Builtins = { 'node:fs': typeof import('node:fs'); 'node:module': typeof import('node:module') };
function builtin<K extends keyof Builtins>(name: K): Builtins[K] | undefined {
  const get = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule;
  return typeof get === 'function' ? (get(name) as Builtins[K] | undefined) : undefined;
}

/**
 * Where the optional `mermaid` peer dependency's browser bundle is, or null when it is not installed. Resolved
 * from this package's location, as the application's own `import 'mermaid'` would be.
 */
export function mermaidBundlePath(): string | null {
  if (!bundle) {
    try {
      const createRequire = builtin('node:module')?.createRequire;
      bundle = { path: createRequire ? createRequire(import.meta.url).resolve('mermaid/dist/mermaid.min.js') : null };
    } catch {
      bundle = { path: null };
    }
  }
  return bundle.path;
}

/** Answers like any unknown action, for a request that reaches the inspector when it must not exist. */
function unavailable(req: AuthRequest): Response {
  req.config.logger.error(new UnknownAction(`Unsupported action: GET ${req.url.pathname}`));
  return new AuthResponse(JSON.stringify({ error: 'UnknownAction', message: 'Bad request.' }), { status: 400, headers: { 'content-type': 'application/json' } });
}

function page(req: AuthRequest, render: (ctx: InspectPageContext) => string, status = 200): Response {
  // The `devtools` policy of html(): the Mermaid bundle runs by nonce, its SVG needs inline styles, no referrer.
  const nonce = pageNonce(req);
  const inspectPath = `${req.config.basePath}/${INSPECT_SEGMENT}`;
  const ctx: InspectPageContext = { inspectPath, mermaidUrl: mermaidBundlePath() ? `${inspectPath}/mermaid.js` : null, nonce, capacity: FLOW_LOG_SIZE, shared: req.config.inspector === 'shared' };
  req.headers.set('x-robots-tag', 'noindex');
  return html(req, render(ctx), status, 'devtools');
}

// Each browser sees the flows it ran (or all with `debug: { inspector: 'shared' }`); another browser's flow is
// answered exactly like one that never existed.
export function inspectListRoute(req: AuthRequest): Response {
  const flows = visibleFlows(req);
  if (!flows) return unavailable(req);
  return page(req, (ctx) => renderInspectList(flows, ctx));
}

export function inspectFlowRoute(req: AuthRequest, id: string): Response {
  if (!tracesKept(req.config)) return unavailable(req);
  const flow = visibleFlow(req, id);
  if (!flow) return page(req, renderInspectMissing, 404);
  return page(req, (ctx) => renderInspectFlow(flow, ctx));
}

export function inspectMermaidRoute(req: AuthRequest): Response {
  if (!tracesKept(req.config)) return unavailable(req);
  const path = mermaidBundlePath();
  if (!path) return new AuthResponse('mermaid is not installed', { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8' } });
  // Read once: a fetch Response copies its bytes, so one buffer serves every request.
  bundle!.bytes ??= new Uint8Array(builtin('node:fs')!.readFileSync(path));
  return new AuthResponse(bundle!.bytes, {
    headers: { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'private, max-age=3600', 'x-content-type-options': 'nosniff' },
  });
}
