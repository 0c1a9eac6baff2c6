// The steps of password recovery. A request stores, in the flow store, one reset entry under the HMAC of a random
// token (never the token), for any address, known or not, so both cost the same; only a known account's owner gets
// the mail (sent in the background, so its time is nobody's clue). The link or the code leads to the new password,
// and the entry is taken at that moment, atomically: of two uses of one token exactly one goes on.
import { createHmac, randomBytes, randomInt, randomUUID, timingSafeEqual } from 'node:crypto';
import type { StoredUser } from '../../core/adapter.js';
import { InvalidPassword, type PasswordProblem } from '../../core/errors.js';
import { messagesFor } from '../../core/messages/request.js';
import { configuredMailer, normalizeEmailAddress } from '../../providers/email.js';
import { passwordMail, sendPasswordMail, type PasswordMailOptions } from '../../providers/password/mail.js';
import { hashNewPassword } from '../../providers/password/new-password.js';
import type { PasswordSettings } from '../../providers/password/provider.js';
import { endEverySession } from '../../session/end-every-session.js';
import type { FlowDeps } from '../runtime/contract.js';
import type { InternalConfig } from '../../core/config.js';
import { passwordAdapter, passwordSettings } from './adapter.js';
import { writeRecoveryCompleted } from '../../activity/outcomes.js';
import { activityInAdapter } from '../../activity/write.js';

/** How long a reset link and code live: 15 minutes. */
export const RESET_TTL_SECONDS = 15 * 60;
/** Wrong codes a request allows before its link and code die. */
export const RESET_CODE_ATTEMPTS = 5;
/** Seconds before another mail may go to one address. */
export const RESET_COOLDOWN_SECONDS = 60;
/** The longest token a link may carry into a lookup (the real ones are 43 characters). */
export const MAX_RESET_TOKEN = 128;

/** The flow store's reset entry: whose password, bound to the hash it replaces; never the token or the code. */
interface ResetEntry {
  /** The account's user, or null for an address without one (a decoy that nothing can use). */
  userId: string | null;
  email: string;
  /** HMAC of the password hash at the request: a password changed since then makes the token stale. */
  fingerprint: string;
  /** HMAC of the code, bound to the token's hash. */
  code: string;
  expires: number;
}

export type IssueResult = { result: 'invalid' } | { result: 'cooling'; email: string } | { result: 'issued'; email: string; tokenHash: string; expires: number };
export type CodeCheck = { result: 'passed' } | { result: 'wrong'; left: number } | { result: 'dead' };
export type LinkCheck = { result: 'valid'; tokenHash: string; expires: number } | { result: 'dead' };
export type ResetResult = { result: 'refused'; problem: PasswordProblem } | { result: 'dead' } | { result: 'reset'; userId: string; email: string };

const settingsOf = (deps: FlowDeps): PasswordSettings => passwordSettings(deps.provider);

const adapterOf = (deps: { req: { config: Pick<InternalConfig, 'adapter'> } }) => passwordAdapter(deps.req.config);

const mac = (secret: string, label: string, value: string) => createHmac('sha256', secret).update(`authchart-reset-${label}:${value}`).digest('hex');
const secrets = (deps: FlowDeps) => deps.req.config.secrets;

/** The flow store key of a token's entry: its HMAC, so the store never holds a usable token. */
export const resetKey = (tokenHash: string) => `reset:${tokenHash}`;
const triesKey = (tokenHash: string) => `reset:${tokenHash}:tries`;
const secondsUntil = (expires: number) => Math.max(1, Math.ceil((expires - Date.now()) / 1000));

/**
 * A request for `email`: the same work for every address (normalise, claim the address's cooldown, look the account
 * and its hash up, store an entry), then the mail in the background for an account that has a password.
 */
export async function issueReset({ input }: { input: { deps: FlowDeps; email: string; previous?: string } }): Promise<IssueResult> {
  const { deps } = input;
  let email: string;
  try {
    email = normalizeEmailAddress(input.email);
  } catch {
    return { result: 'invalid' };
  }
  // A new request ends the one this browser held (its code and link), known account or not.
  if (input.previous) await deps.store.take(resetKey(input.previous));
  const cooldown = `cooldown:${mac(secrets(deps)[0], 'cooldown', email)}`;
  if (!(await deps.store.add(cooldown, 1, RESET_COOLDOWN_SECONDS))) return { result: 'cooling', email };
  const { adapter, getPasswordHash } = adapterOf(deps);
  const user = (await adapter.getUserByEmail(email)) as StoredUser | null;
  // A random id for nobody (valid in a uuid column): the same two queries whether or not the account exists.
  const hash = await getPasswordHash(user ? String(user.id) : randomUUID());
  const known = user !== null && hash !== null;
  const token = randomBytes(32).toString('base64url');
  const code = randomInt(0, 1_000_000).toString().padStart(6, '0');
  const tokenHash = mac(secrets(deps)[0], 'token', token);
  const expires = Date.now() + RESET_TTL_SECONDS * 1000;
  const entry: ResetEntry = {
    userId: known ? String(user.id) : null,
    email,
    fingerprint: mac(secrets(deps)[0], 'hash', hash ?? ''),
    code: mac(secrets(deps)[0], 'code', `${tokenHash}:${code}`),
    expires,
  };
  await deps.store.set(resetKey(tokenHash), entry, RESET_TTL_SECONDS);
  if (known) {
    const url = new URL(`${deps.req.authUrl}/recover/${encodeURIComponent(deps.provider.id)}`);
    url.searchParams.set('token', token);
    void mailTo(deps, 'reset', email, { url: url.href, code, expires: new Date(expires) });
  }
  return { result: 'issued', email, tokenHash, expires };
}

/**
 * How recovery mails go: the provider's `mail`; without a `send` or `server` there (nor AUTH_EMAIL_SERVER), through
 * the configured e-mail provider's server and sender, as sign-up mails and the change-password notice do.
 */
function recoveryMailOptions(deps: FlowDeps): PasswordMailOptions | undefined {
  const own = settingsOf(deps).mail;
  if (own?.send || own?.server || deps.req.config.env.AUTH_EMAIL_SERVER) return own;
  const resolved = configuredMailer(deps.req.config, deps.req.origin);
  return resolved?.server ? { ...own, server: resolved.server, from: own?.from ?? resolved.from } : own;
}

/** Sends a recovery mail; a failure is logged, never answered (the answer must not depend on the account). */
async function mailTo(deps: FlowDeps, kind: 'reset' | 'changed', to: string, parts: { url: string; code?: string; expires?: Date }): Promise<void> {
  try {
    const i18n = await messagesFor(deps.req);
    const mail = passwordMail(kind, to, i18n, { host: new URL(deps.req.origin).host, ...parts });
    await sendPasswordMail(recoveryMailOptions(deps), deps.req.config.env, deps.req.origin, mail);
  } catch (err) {
    deps.req.config.logger.error(err instanceof Error ? err : new Error(String(err)));
  }
}

function codeMatches(deps: FlowDeps, tokenHash: string, code: string, stored: string): boolean {
  const want = Buffer.from(stored, 'hex');
  const typed = code.slice(0, 32).replace(/[\s-]/g, '');
  return secrets(deps).some((secret) => {
    const got = Buffer.from(mac(secret, 'code', `${tokenHash}:${typed}`), 'hex');
    return got.length === want.length && timingSafeEqual(got, want);
  });
}

/**
 * One try at the code of this browser's request. Each try is counted first, atomically, and compared only within
 * the allowed number; the last allowed miss takes the entry, link included. A match leaves the entry: it is taken
 * when the new password is set.
 */
export async function checkCode({ input }: { input: { deps: FlowDeps; tokenHash: string; code: string } }): Promise<CodeCheck> {
  const { deps, tokenHash } = input;
  const entry = await deps.store.get<ResetEntry>(resetKey(tokenHash));
  if (!entry || !(entry.expires > Date.now())) return { result: 'dead' };
  const tries = await deps.store.increment(triesKey(tokenHash), secondsUntil(entry.expires));
  if (tries > RESET_CODE_ATTEMPTS) return { result: 'dead' };
  if (entry.userId !== null && codeMatches(deps, tokenHash, input.code, entry.code)) return { result: 'passed' };
  if (tries >= RESET_CODE_ATTEMPTS) {
    await deps.store.take(resetKey(tokenHash));
    return { result: 'dead' };
  }
  return { result: 'wrong', left: RESET_CODE_ATTEMPTS - tries };
}

/** Looks a link's token up without using it: the entry's key and expiry when a live entry for an account matches. */
export async function openLink({ input }: { input: { deps: FlowDeps; token: string } }): Promise<LinkCheck> {
  const { deps } = input;
  const tried = new Set<string>();
  for (const secret of secrets(deps)) {
    const tokenHash = mac(secret, 'token', input.token);
    if (tried.has(tokenHash)) continue;
    tried.add(tokenHash);
    const entry = await deps.store.get<ResetEntry>(resetKey(tokenHash));
    if (entry && entry.userId !== null && entry.expires > Date.now()) return { result: 'valid', tokenHash, expires: entry.expires };
  }
  return { result: 'dead' };
}

/**
 * Sets the new password: the rules first (a refused password spends nothing), then the entry taken (single use),
 * checked against the password it was issued for, every session of the user ended, and the hash written only while
 * the stored one is still that password. A store or database that fails after the take puts the entry back: an
 * outage spends nothing.
 */
export async function resetPassword({ input }: { input: { deps: FlowDeps; tokenHash: string; password: string } }): Promise<ResetResult> {
  const { deps, tokenHash } = input;
  const settings = settingsOf(deps);
  let newHash: string;
  try {
    newHash = await hashNewPassword(input.password, { hasher: settings.hasher, ...(settings.minLength !== undefined ? { minLength: settings.minLength } : {}), ...(settings.breached ? { breached: settings.breached } : {}) });
  } catch (err) {
    if (err instanceof InvalidPassword && err.problem) return { result: 'refused', problem: err.problem };
    throw err;
  }
  const entry = await deps.store.take<ResetEntry>(resetKey(tokenHash));
  if (!entry || entry.userId === null || !(entry.expires > Date.now())) return { result: 'dead' };
  const { getPasswordHash } = adapterOf(deps);
  try {
    const current = await getPasswordHash(entry.userId);
    if (current === null || !secrets(deps).some((s) => mac(s, 'hash', current) === entry.fingerprint)) return { result: 'dead' };
    // Before the password is written: a failure leaves the old password and a usable link.
    await endEverySession(deps.req, entry.userId, 'Password recovery');
    if (!(await setPasswordHashWithRecord(deps, entry.userId, newHash, current))) return { result: 'dead' };
  } catch (err) {
    await deps.store.set(resetKey(tokenHash), entry, secondsUntil(entry.expires)).catch(() => undefined);
    throw err;
  }
  return { result: 'reset', userId: entry.userId, email: entry.email };
}

/**
 * Writes the new hash and its `recovery.completed` record together: in one transaction where the adapter has
 * `withTransaction` (a record that cannot be written leaves the old hash and a usable link), else one after the other.
 */
async function setPasswordHashWithRecord(deps: FlowDeps, userId: string, hash: string, current: string): Promise<boolean> {
  const { adapter } = adapterOf(deps);
  const write = async (a: NonNullable<InternalConfig['adapter']>, tx: boolean): Promise<boolean> => {
    if (!(await passwordAdapter({ adapter: a }).setPasswordHash(userId, hash, current))) return false;
    await writeRecoveryCompleted(deps.req, userId, tx ? a : undefined);
    return true;
  };
  // A transaction only when there is a record to write with the hash: with the log off, the write is what it always was.
  return adapter.withTransaction && activityInAdapter(deps.req.config) ? adapter.withTransaction((tx) => write(tx, true)) : write(adapter, false);
}


/**
 * After a reset: the notice mail goes out (in the background), and the address, proved, is marked verified if it
 * was not. The password is already changed: the machine logs a failure here and ends well all the same.
 */
export async function afterReset({ input }: { input: { deps: FlowDeps; userId: string; email: string } }): Promise<void> {
  const { deps } = input;
  void mailTo(deps, 'changed', input.email, { url: `${deps.req.authUrl}/recover/${encodeURIComponent(deps.provider.id)}` });
  const adapter = deps.req.config.adapter!;
  const user = (await adapter.getUser(input.userId)) as StoredUser | null;
  if (user && (user.emailVerified === null || user.emailVerified === undefined) && user.email === input.email) {
    await adapter.updateUser({ id: input.userId, emailVerified: new Date() });
  }
}
