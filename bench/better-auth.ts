// better-auth, the library new projects pick today, as a peer in the bench: loaded from bench/node_modules only,
// configured as its docs recommend for each case (e-mail and password accounts; the session cookie cache with its
// default "compact" strategy and with "jwe", or every check read from the database), and a session obtained by
// really signing up and signing in. Before a side is timed, its cookie must be accepted and a tampered one refused.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BENCH_SECRET, BENCH_USER, ORIGIN, type Handle } from './contenders.js';

const BETTER_AUTH_DIR = join(fileURLToPath(new URL('.', import.meta.url)), 'node_modules', 'better-auth');
export const BETTER_AUTH_SESSION_COOKIE = 'better-auth.session_token';
export const BETTER_AUTH_PASSWORD = 'bench-password-0123';
const PASSWORD = BETTER_AUTH_PASSWORD;

/** How better-auth keeps the session a check reads. */
export type BetterAuthMode = 'cookie cache (compact)' | 'cookie cache (jwe)' | 'database';

export interface BetterAuthInstance {
  handler: Handle;
  api: { signUpEmail(args: { body: Record<string, string> }): Promise<unknown> };
}

/** `better-auth` as installed in bench/node_modules. */
export interface BetterAuthPeer {
  version: string;
  betterAuth(options: Record<string, unknown>): BetterAuthInstance;
  getMigrations(options: Record<string, unknown>): Promise<{ runMigrations(): Promise<void> }>;
  memoryAdapter(db: Record<string, unknown[]>): unknown;
  /** better-auth/node's bridge, what its docs mount in a Node server. */
  toNodeHandler(auth: BetterAuthInstance): (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => unknown;
}

/** Loads better-auth from bench/node_modules only (never a copy elsewhere), or undefined when it is not installed. */
export async function loadBetterAuth(): Promise<BetterAuthPeer | undefined> {
  const manifest = join(BETTER_AUTH_DIR, 'package.json');
  if (!existsSync(manifest)) return undefined;
  const pkg = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string; exports: Record<string, { import?: { default?: string } | string; default?: string }> };
  const entry = (name: string): string => {
    const e = pkg.exports[name];
    const file = typeof e?.import === 'string' ? e.import : (e?.import?.default ?? e?.default);
    if (!file) throw new Error(`better-auth has no export "${name}"`);
    return pathToFileURL(join(BETTER_AUTH_DIR, file)).href;
  };
  const [main, migration, memory, node] = await Promise.all([import(entry('.')), import(entry('./db/migration')), import(entry('./adapters/memory')), import(entry('./node'))]);
  return { version: pkg.version, betterAuth: main.betterAuth, getMigrations: migration.getMigrations, memoryAdapter: memory.memoryAdapter, toNodeHandler: node.toNodeHandler };
}

/** A better-auth side ready to be timed: its handler and the `cookie` header of a live session. */
export interface BetterAuthSide {
  handle: Handle;
  /** The instance, for a server of its own (`toNodeHandler`). */
  auth: BetterAuthInstance;
  cookie: string;
  /** Length of the session cookies' values (the token, and the cache when there is one). */
  cookieChars: number;
}

/** better-auth's options for a mode: the one secret and origin of every side, e-mail and password accounts. */
function optionsFor(mode: BetterAuthMode, database: unknown, password?: PasswordHashing): Record<string, unknown> {
  const cache = mode === 'database' ? { enabled: false } : { enabled: true, maxAge: 300, strategy: mode === 'cookie cache (jwe)' ? 'jwe' : 'compact' };
  return {
    database,
    secret: BENCH_SECRET,
    baseURL: ORIGIN,
    basePath: '/api/auth',
    emailAndPassword: password ? { enabled: true, password } : { enabled: true },
    session: { cookieCache: cache },
    telemetry: { enabled: false },
    logger: { disabled: true },
  };
}

/** A password hash better-auth uses in place of its default scrypt (`emailAndPassword.password`). */
export interface PasswordHashing {
  hash(password: string): Promise<string>;
  verify(args: { hash: string; password: string }): Promise<boolean>;
}

/** One check of better-auth's session, as the other sides' checks are timed: the same GET reused, its body read. */
export function betterAuthCheck(handle: Handle, cookie: string): () => Promise<string> {
  const request = new Request(`${ORIGIN}/api/auth/get-session`, { headers: { cookie } });
  return () => handle(request).then((res) => res.text());
}

/**
 * Builds better-auth in `mode` on `database` (a pg Pool, whose tables its migrations create, or omitted for its
 * memory adapter), signs the bench user up and in through its routes, and checks that the session is read and that
 * a tampered session token is refused.
 *
 * @example
 * const side = await betterAuthSide(peer, 'cookie cache (compact)')
 */
export async function betterAuthSide(peer: BetterAuthPeer, mode: BetterAuthMode, database?: unknown, password?: PasswordHashing): Promise<BetterAuthSide> {
  const db = database ?? peer.memoryAdapter({ user: [], session: [], account: [], verification: [] });
  const options = optionsFor(mode, db, password);
  if (database) await (await peer.getMigrations(options)).runMigrations();
  const auth = peer.betterAuth(options);
  await auth.api.signUpEmail({ body: { email: BENCH_USER.email, password: PASSWORD, name: BENCH_USER.name } });
  const res = await auth.handler(
    new Request(`${ORIGIN}/api/auth/sign-in/email`, { method: 'POST', headers: { 'content-type': 'application/json', origin: ORIGIN }, body: JSON.stringify({ email: BENCH_USER.email, password: PASSWORD }) }),
  );
  const pairs = res.headers.getSetCookie().map((c) => c.split(';', 1)[0]);
  if (res.status !== 200 || !pairs.some((p) => p.startsWith(`${BETTER_AUTH_SESSION_COOKIE}=`))) throw new Error(`better-auth sign-in answered ${res.status} without a session cookie`);
  if (mode !== 'database' && !pairs.some((p) => p.startsWith('better-auth.session_data='))) throw new Error('better-auth set no cookie cache');
  const cookie = pairs.join('; ');
  const read = async (c: string) => JSON.parse(await betterAuthCheck(auth.handler, c)()) as { user?: { email?: string } } | null;
  if ((await read(cookie))?.user?.email !== BENCH_USER.email) throw new Error(`better-auth (${mode}) did not read its own session`);
  // A session token whose signature was changed: refused, cache or not (the cache is bound to the token).
  const tampered = pairs.map((p) => (p.startsWith(`${BETTER_AUTH_SESSION_COOKIE}=`) ? `${p.slice(0, -4)}AAAA` : p)).join('; ');
  if ((await read(tampered)) !== null) throw new Error(`better-auth (${mode}) accepted a tampered session token`);
  return { handle: auth.handler, auth, cookie, cookieChars: pairs.reduce((n, p) => n + p.length - p.indexOf('=') - 1, 0) };
}
