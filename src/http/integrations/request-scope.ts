// The request an application handler is answering, for the API forms that are not handed it (`auth()`,
// `unstable_update(data)`, `signIn(...)`, `signOut()` on a server). Entered only by authchart's middleware and
// handler wrappers, for that request; authchart's own routes and its flow machines never read it.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ServerResponse } from 'node:http';
import type { Session } from '../../core/types.js';
import { appendNodeSetCookie } from './h3-v1.js';

/** One application request in flight below authchart's middleware (or inside a handler `auth` wrapped). */
export interface RequestScope {
  readonly request: Request;
  /** Set-Cookie lines waiting for the response (unused when `node` takes them at once). */
  readonly lines: string[];
  /** A Node response that is still open: lines are written to it as they come. */
  readonly node?: ServerResponse;
  /** The session each authchart instance read for this request, so `auth()` reads it once per request. */
  readonly sessions: Map<object, Promise<Session | null>>;
}

const storage = new AsyncLocalStorage<RequestScope>();

// While an AsyncLocalStorage is entered, Node 20 runs a hook on every promise the process makes (a session check
// costs about a third more CPU). So the store is switched off again whenever no scoped request is in flight: an app
// pays only while one of the forms that need it is answering, and authchart's own routes never turn it on.
let inFlight = 0;

function release(): void {
  if (--inFlight === 0) storage.disable();
}

/** The request being answered, or undefined outside authchart's middleware and wrapped handlers. */
export function currentScope(): RequestScope | undefined {
  return storage.getStore();
}

/** A scope for one request; `lines` are Set-Cookie lines already due (a session refresh). */
export function newScope(request: Request, lines: string[] = [], node?: ServerResponse): RequestScope {
  const scope: RequestScope = { request, lines: [], node, sessions: new Map() };
  addScopeCookies(scope, lines);
  return scope;
}

/** Runs `fn` (and everything it awaits) with `scope` as the current request, until what it returns settles. */
export async function runInScope<T>(scope: RequestScope, fn: () => T): Promise<Awaited<T>> {
  inFlight++;
  try {
    return await storage.run(scope, fn);
  } finally {
    release();
  }
}

/**
 * Runs `fn` with `scope` as the current request for as long as `done` takes to call back: for servers that run the
 * rest of the request after `fn` returns (Express's `next()`), released when the response closes.
 */
export function enterScopeUntil(scope: RequestScope, fn: () => void, done: (release: () => void) => void): void {
  inFlight++;
  let released = false;
  done(() => {
    if (!released) {
      released = true;
      release();
    }
  });
  storage.run(scope, fn);
}

/** Queues Set-Cookie lines for the scope's response (or writes them to its open Node response). */
export function addScopeCookies(scope: RequestScope, lines: readonly string[]): void {
  if (lines.length === 0) return;
  if (scope.node) appendNodeSetCookie(scope.node, lines);
  else scope.lines.push(...lines);
}

/**
 * Adds Set-Cookie lines to a response, skipping any it already carries (a `signIn` redirect returned by the handler
 * carries the same lines it queued), and copying the response when its headers are immutable.
 */
export function withCookies(response: Response, lines: readonly string[]): Response {
  if (lines.length === 0) return response;
  const present = new Set(response.headers.getSetCookie());
  const missing = lines.filter((line) => !present.has(line));
  if (missing.length === 0) return response;
  try {
    for (const line of missing) response.headers.append('set-cookie', line);
    return response;
  } catch {
    const copy = new Response(response.body, response);
    for (const line of missing) copy.headers.append('set-cookie', line);
    return copy;
  }
}
