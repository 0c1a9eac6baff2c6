// Hashes an app brings from an earlier system, verified once and then replaced by the hasher's own at that sign-in.
// bcrypt (what Auth.js Credentials apps and most Node apps stored, through bcrypt or bcryptjs) is built in; any other
// format is the app's `verifyImported`.
import { lazy } from '../../core/lazy.js';
import type { Awaitable } from '../../core/types.js';

/**
 * The app's check of a hash format authchart does not know (PBKDF2, scrypt, a framework's own): whether `password`
 * matches `hash`, or `undefined` when the format is not one it knows either.
 *
 * @example
 * verifyImported: (hash, password) => hash.startsWith('pbkdf2_sha256$') ? checkDjangoHash(hash, password) : undefined
 */
export type VerifyImported = (hash: string, password: string) => Awaitable<boolean | undefined>;

// $2a$, $2b$ and $2y$ (the same algorithm; 2y is PHP's name), a two-digit cost, 22 characters of salt, 31 of hash.
const BCRYPT = /^\$2[aby]\$\d{2}\$[./A-Za-z0-9]{53}$/;

// A variable specifier keeps the package optional: a bundler does not require it to be installed.
const BCRYPT_PACKAGE = 'bcryptjs';
const loadBcrypt = lazy(() =>
  (import(BCRYPT_PACKAGE) as Promise<typeof import('bcryptjs')>).catch((err: unknown) => {
    throw new Error('Verifying an imported bcrypt hash needs the optional peer dependency bcryptjs: npm i bcryptjs', { cause: err });
  }),
);

/**
 * Whether `password` matches an imported hash: bcrypt built in, else the app's `verifyImported`. Undefined when
 * neither knows the format (a stored value nobody can check: a configuration problem, not a wrong password).
 * The password is checked as it was typed (not NFKC-normalised): the earlier system hashed it so.
 *
 * @example
 * await verifyImportedHash('$2b$10$…', 'hunter22') // true or false
 */
export async function verifyImportedHash(hash: string, password: string, verifyImported?: VerifyImported): Promise<boolean | undefined> {
  if (BCRYPT.test(hash)) return (await loadBcrypt()).compare(password, hash);
  if (!verifyImported) return undefined;
  const verdict = await verifyImported(hash, password);
  return verdict === undefined ? undefined : verdict === true;
}
