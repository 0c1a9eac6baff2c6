// The two libraries under test, configured alike: authchart as built and installed (./built.ts) and Auth.js (`@auth/core`) from
// bench/node_modules, each with a credentials provider and a session cookie obtained by really signing in.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Auth as AuthFn } from '@auth/core';
import type CredentialsFn from '@auth/core/providers/credentials';
import type { AuthConfig } from '../src/index.js';
import { root } from './built.js';
import { createClient } from '../test/support/client.js';

/** One secret for both sides, so the tokens are the same size of work. */
export const BENCH_SECRET = 'authchart-bench-secret-0123456789-abcdefghij';
/** The browser-facing origin both apps believe they serve (in-process requests use it as their URL). */
export const ORIGIN = 'http://localhost:3000';
/** The user every credentials sign-in returns. */
export const BENCH_USER = { id: 'user-1', name: 'Alice Bench', email: 'alice@example.test' };

export const OURS_SESSION_COOKIE = 'authchart.session-token';
export const AUTHJS_SESSION_COOKIE = 'authjs.session-token';

export type Handle = (request: Request) => Promise<Response>;

const BENCH_DIR = fileURLToPath(new URL('.', import.meta.url));
const AUTHJS_DIR = join(BENCH_DIR, 'node_modules', '@auth', 'core');

/** `@auth/core` as installed in bench/node_modules. */
export interface Authjs {
  Auth: typeof AuthFn;
  Credentials: typeof CredentialsFn;
  version: string;
}

export { NOT_INSTALLED } from './measure.js';

/**
 * Loads `@auth/core` from bench/node_modules only, never the copy another package may have put in the root
 * tree, so a missing bench install shows as "not installed" rather than as a quietly different baseline.
 */
export async function loadAuthjs(): Promise<Authjs | undefined> {
  const manifest = join(AUTHJS_DIR, 'package.json');
  if (!existsSync(manifest)) return undefined;
  const core = (await import(pathToFileURL(join(AUTHJS_DIR, 'index.js')).href)) as { Auth: typeof AuthFn };
  const credentials = (await import(pathToFileURL(join(AUTHJS_DIR, 'providers', 'credentials.js')).href)) as { default: typeof CredentialsFn };
  const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
  return { Auth: core.Auth, Credentials: credentials.default, version };
}

/**
 * Errors either library logged, newest last: the console stays quiet during timing, and a broken setup can still
 * say why (see {@link assertSession}).
 */
const logged: string[] = [];
export const quiet = {
  error(e: Error) {
    logged.push(`${(e as { type?: string }).type ?? e.name}: ${e.message}`);
    if (logged.length > 5) logged.shift();
  },
  warn() {},
};

/** What {@link quiet} recorded lately, for error messages. */
export function loggedErrors(): string {
  return logged.join(' | ') || 'nothing';
}

/** authchart's configuration for the bench: a credentials provider that always returns {@link BENCH_USER}. */
export function authchartConfig(extra: Partial<AuthConfig> = {}): AuthConfig {
  return {
    secret: BENCH_SECRET,
    trustHost: true,
    logger: quiet,
    providers: [root.Credentials({ credentials: { username: {}, password: {} }, authorize: async () => ({ ...BENCH_USER }) })],
    ...extra,
  };
}

/** authchart served through `createAuth(config).handle` (its h3 app's `fetch`, behind the instance's resolve). */
export async function authchartApp(extra: Partial<AuthConfig> = {}): Promise<Handle> {
  const auth = root.createAuth(authchartConfig(extra));
  return (request) => auth.handle(request);
}

/** Auth.js with the same provider, as its `Auth(request, config)` handler. */
export function authjsApp(authjs: Authjs, extra: Record<string, unknown> = {}): Handle {
  const config = {
    secret: BENCH_SECRET,
    trustHost: true,
    basePath: '/auth',
    session: { strategy: 'jwt' as const },
    logger: { ...quiet, debug() {} },
    providers: [authjs.Credentials({ credentials: { username: {}, password: {} }, authorize: async () => ({ ...BENCH_USER }) })],
    ...extra,
  };
  return (request) => authjs.Auth(request, config);
}

/**
 * Signs in through the app's own routes as a browser would (CSRF token, then the credentials form) and
 * returns the `cookie` header that carries the new session: `name=value`. Without `handle`, over the network
 * to `baseUrl`.
 */
export async function signInWithCredentials(handle: Handle | undefined, sessionCookie: string, baseUrl = ORIGIN): Promise<string> {
  const client = createClient({ fetch: handle, baseUrl });
  const { csrfToken } = (await (await client.get('/auth/csrf')).json()) as { csrfToken: string };
  const res = await client.post('/auth/callback/credentials', { csrfToken, username: 'alice', password: 'bench', callbackUrl: `${baseUrl}/` });
  const value = client.cookies.get(sessionCookie);
  if (res.status !== 302 || !value) throw new Error(`credentials sign-in failed: ${res.status}, no ${sessionCookie} cookie`);
  return `${sessionCookie}=${value}`;
}

/** Asks for the session with `cookie` and fails loudly unless it is the bench user's: no figure for a broken setup. */
export async function assertSession(handle: Handle, cookie: string, baseUrl = ORIGIN): Promise<void> {
  const res = await handle(new Request(`${baseUrl}/auth/session`, { headers: { cookie } }));
  const body = (await res.json()) as { user?: { email?: string } } | null;
  if (res.status !== 200 || body?.user?.email !== BENCH_USER.email) {
    throw new Error(`session check answered ${res.status} ${JSON.stringify(body)}; logged: ${loggedErrors()}`);
  }
}

/**
 * One session check as a timed operation: the same GET, reused (building a Request is the caller's cost, not the
 * library's, and a GET has no body to use up), its body read as a client would.
 */
export function sessionCheck(handle: Handle, cookie: string): () => Promise<string> {
  const request = new Request(`${ORIGIN}/auth/session`, { headers: { cookie } });
  return () => handle(request).then((res) => res.text());
}
