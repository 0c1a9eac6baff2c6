// How new password hashes are made: argon2id with OWASP's parameters, through @node-rs/argon2 (prebuilt native code
// for Node, Bun and Deno), loaded on the first hash, never at import. Another runtime (a worker) brings a hasher.
import { randomBytes } from 'node:crypto';
import { lazy } from '../../core/lazy.js';

/**
 * What makes and checks the hashes of new passwords. The default is {@link argon2id}; a runtime without native
 * modules (Cloudflare Workers) brings one over WebAssembly with the same PHC string format.
 *
 * @example
 * const hasher: PasswordHasher = argon2id({ memoryCost: 47_104, timeCost: 1 })
 */
export interface PasswordHasher {
  /** A new hash of `password` (a PHC string such as `$argon2id$v=19$m=19456,t=2,p=1$…`). */
  hash(password: string): Promise<string>;
  /** Whether `password` matches `hash`, a hash of the format this hasher makes. */
  verify(hash: string, password: string): Promise<boolean>;
  /** Whether this hasher makes hashes of this format (else it is an imported one, see `verifyImported`). */
  recognizes(hash: string): boolean;
  /** Whether a hash that just verified should be replaced by a new one (other parameters than today's). */
  needsRehash(hash: string): boolean;
}

/** argon2id's cost parameters: memory in KiB, passes, lanes. */
export interface Argon2idParameters {
  memoryCost: number;
  timeCost: number;
  parallelism: number;
}

/** OWASP's first recommendation for argon2id (Password Storage Cheat Sheet): 19 MiB, 2 passes, 1 lane. */
export const OWASP_ARGON2ID: Readonly<Argon2idParameters> = /* @__PURE__ */ Object.freeze({ memoryCost: 19_456, timeCost: 2, parallelism: 1 });

// @node-rs/argon2's `Algorithm.Argon2id` (a const enum, which an isolated module cannot read).
const ARGON2ID = 2;
// Any argon2 variant: an argon2i or argon2d hash (imported) verifies too, and is then replaced by argon2id.
const PHC = /^\$argon2(id|i|d)\$v=(\d+)\$m=(\d+),t=(\d+),p=(\d+)\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/;

// A variable specifier keeps the package optional: a bundler (a worker's) does not require it to be installed.
const ARGON2_PACKAGE = '@node-rs/argon2';
const loadArgon2 = /* @__PURE__ */ lazy(() =>
  (import(ARGON2_PACKAGE) as Promise<typeof import('@node-rs/argon2')>).catch((err: unknown) => {
    throw new Error('Password hashing needs the optional peer dependency @node-rs/argon2 (npm i @node-rs/argon2; Deno also --allow-ffi --allow-env), or a `hasher` of your own.', { cause: err });
  }),
);

/**
 * The argon2id hasher. `needsRehash` is true for any argon2id hash made with other parameters, so raising them
 * upgrades each account at its next sign-in.
 *
 * @example
 * Password({ hasher: argon2id(OWASP_ARGON2ID) })
 */
export function argon2id(parameters: Partial<Argon2idParameters> = {}): PasswordHasher {
  const p: Argon2idParameters = { ...OWASP_ARGON2ID, ...parameters };
  for (const [name, value] of Object.entries(p)) {
    if (!Number.isInteger(value) || value < 1) throw new TypeError(`argon2id: ${name} must be a positive integer.`);
  }
  return {
    async hash(password) {
      const { hash } = await loadArgon2();
      return hash(password, { algorithm: ARGON2ID, ...p });
    },
    async verify(hashed, password) {
      const { verify } = await loadArgon2();
      return verify(hashed, password);
    },
    recognizes: (hashed) => PHC.test(hashed),
    needsRehash(hashed) {
      const m = PHC.exec(hashed);
      return !m || m[1] !== 'id' || Number(m[2]) !== 19 || Number(m[3]) !== p.memoryCost || Number(m[4]) !== p.timeCost || Number(m[5]) !== p.parallelism;
    },
  };
}

const dummies = new WeakMap<PasswordHasher, Promise<string>>();

/**
 * A hash of a random password nobody knows, made by `hasher` once (on first use) and kept: what a sign-in for an
 * unknown account verifies against, so it costs what a known account costs.
 *
 * @example
 * await hasher.verify(await dummyHash(hasher), password) // false, in the time a real check takes
 */
export function dummyHash(hasher: PasswordHasher): Promise<string> {
  let dummy = dummies.get(hasher);
  if (!dummy) {
    dummy = hasher.hash(randomBytes(24).toString('base64url'));
    dummy.catch(() => dummies.delete(hasher));
    dummies.set(hasher, dummy);
  }
  return dummy;
}
