// The steps of a password sign-in: find the account and its hash, check the password (against a dummy hash when
// there is no account, so both cost the same), and replace a hash of another format or older parameters.
import { randomUUID } from 'node:crypto';
import type { StoredUser } from '../../core/adapter.js';
import { normalizeEmailAddress } from '../../providers/email.js';
import { dummyHash } from '../../providers/password/hash.js';
import { verifyImportedHash } from '../../providers/password/imported.js';
import type { PasswordSettings } from '../../providers/password/provider.js';
import { passwordForHashing } from '../../providers/password/rules.js';
import type { FlowDeps } from '../runtime/contract.js';
import { DROPPED_PASSWORD } from './unverified.js';
import type { InternalConfig } from '../../core/config.js';
import { passwordAdapter, passwordSettings } from './adapter.js';

/** The account a sign-in names: its user and stored hash, or nulls. */
export interface FoundAccount {
  user: StoredUser | null;
  hash: string | null;
}

/** How the password compared with the stored hash. */
export interface PasswordCheck {
  match: boolean;
  /** The hash should be replaced (another format, older parameters). */
  upgrade: boolean;
}

const settingsOf = (deps: FlowDeps): PasswordSettings => passwordSettings(deps.provider);

const adapterOf = (deps: { req: { config: Pick<InternalConfig, 'adapter'> } }) => passwordAdapter(deps.req.config);

/**
 * The user with this address (normalised as the e-mail provider stores addresses) and their hash. The same two
 * queries run whether or not the user exists, so the lookup tells no one which addresses have accounts.
 */
export async function findAccount({ input }: { input: { deps: FlowDeps; identifier: string } }): Promise<FoundAccount> {
  const { adapter, getPasswordHash } = adapterOf(input.deps);
  let address = input.identifier;
  try {
    address = normalizeEmailAddress(input.identifier);
  } catch {
    // Not an address: looked up as typed, which finds nobody, at the same cost.
  }
  const user = (await adapter.getUserByEmail(address)) as StoredUser | null;
  // A random id (valid in a uuid column too) for nobody: an error here would tell unknown accounts apart.
  const hash = await getPasswordHash(user ? String(user.id) : randomUUID());
  // A password dropped when the real owner proved the address (unverified.ts) is no password at all.
  return { user, hash: user && hash !== DROPPED_PASSWORD ? hash : null };
}

/**
 * Whether the password matches the stored hash: the hasher's own format (the password NFKC-normalised, as it was
 * hashed), else an imported one (bcrypt, the app's `verifyImported`; the password as typed). A hash nobody knows
 * is an error (a configuration problem), never a wrong password.
 */
export async function checkPassword({ input }: { input: { deps: FlowDeps; hash: string; password: string } }): Promise<PasswordCheck> {
  const { hasher, verifyImported } = settingsOf(input.deps);
  if (hasher.recognizes(input.hash)) {
    const match = await hasher.verify(input.hash, passwordForHashing(input.password));
    return { match, upgrade: match && hasher.needsRehash(input.hash) };
  }
  const match = await verifyImportedHash(input.hash, input.password, verifyImported);
  if (match === undefined) throw new Error('The stored password hash is of a format neither the hasher, bcrypt nor `verifyImported` knows.');
  return { match, upgrade: match };
}

/** What a sign-in for no account (or an account without a password) does instead: the same work, never a match. */
export async function checkDummy({ input }: { input: { deps: FlowDeps; password: string } }): Promise<false> {
  const { hasher } = settingsOf(input.deps);
  await hasher.verify(await dummyHash(hasher), passwordForHashing(input.password));
  return false;
}

/**
 * Replaces the hash that just verified by the hasher's own, unless the stored one changed meanwhile (a password
 * change wins). Best effort: the password was right, so a failed write is logged and the sign-in goes on.
 */
export async function upgradeHash({ input }: { input: { deps: FlowDeps; userId: string; hash: string; password: string } }): Promise<boolean> {
  const { hasher } = settingsOf(input.deps);
  const { setPasswordHash } = adapterOf(input.deps);
  try {
    return await setPasswordHash(input.userId, await hasher.hash(passwordForHashing(input.password)), input.hash);
  } catch (err) {
    input.deps.req.config.logger.warn('password-rehash-failed', `A password hash could not be upgraded at sign-in: ${(err as Error).message}`);
    return false;
  }
}
