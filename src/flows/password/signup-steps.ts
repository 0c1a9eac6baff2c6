// The steps of a sign-up: the new password checked and hashed, the pending sign-up kept in the flow store (never a
// user row) under the hash of a random token until someone proves the address by the mailed link or code, and the
// account made from it. An address that has an account costs the same and answers the same; its owner gets a notice.
import { createHmac, randomBytes, randomInt, randomUUID, timingSafeEqual } from 'node:crypto';
import { InvalidPassword, Verification } from '../../core/errors.js';
import { FLOW_STORE_LIMITS } from '../../core/flow-store/scoped.js';
import { messagesFor } from '../../core/messages/request.js';
import type { AdapterUser } from '../../core/types.js';
import { normalizeAddress } from '../../providers/email-identifier.js';
import type { PasswordConfig, SignUpMail } from '../../providers/password/provider.js';
import { passwordForHashing } from '../../providers/password/rules.js';
import type { FlowDeps } from '../runtime/contract.js';
import { sendSignUpMail, settingsOf } from './signup-mail.js';
import { claimUnverifiedAccount, DROPPED_PASSWORD, isUnverifiedPasswordAccount } from './unverified.js';
import { signedInUserId } from '../../session/gate.js';
import type { InternalConfig } from '../../core/config.js';
import { createPasswordUser, passwordAdapter } from './adapter.js';

/** What the flow store keeps of a sign-up until the address is proven: never the password, never a user row. */
export interface PendingSignUp {
  email: string;
  /** The new password's hash. */
  hash: string;
  name?: string;
  /** HMAC of the mailed code, bound to the token's hash. */
  code: string;
  expires: number;
  /** The address has an account: this entry proves nothing (no link was mailed; its code matches nothing). */
  existing?: true;
  /** `createAccount: 'at-once'`: the unverified user this proof verifies. */
  userId?: string;
}

/** The form's problem, by field, for the page to show beside it. */
export type SignUpProblem = { field: 'email' } | { field: 'password'; problem: string };

/** A checked form: the address as stored, the hash of the password; or the problem. */
export type PreparedSignUp = { ok: true; email: string; hash: string; name?: string } | ({ ok: false } & SignUpProblem);

/** A sent mail's token hash (names the pending entry) and expiry. */
export interface SentSignUp {
  tokenHash: string;
  expires: number;
}

/** One try at the code. */
export type SignUpCodeCheck = { result: 'passed'; entry: PendingSignUp } | { result: 'wrong'; left: number } | { result: 'dead' };

const MAX_NAME = 200;
const MAX_TYPED_CODE = 32;
const CODE_LENGTH = 6;

const adapterOf = (deps: { req: { config: Pick<InternalConfig, 'adapter'> } }) => passwordAdapter(deps.req.config);

const secretOf = (deps: FlowDeps) => deps.req.config.secrets[0];

/** The stored name of a token: an HMAC with the secret, so the store's keys are no bearer credential. */
export function hashSignUpToken(token: string, secret: string): string {
  return createHmac('sha256', secret).update(`authchart-signup:${token}`).digest('hex');
}

function hashCode(secret: string, tokenHash: string, code: string): string {
  return createHmac('sha256', secret).update(`authchart-signup-code:${tokenHash}:${code}`).digest('hex');
}

const pendingKey = (tokenHash: string) => `pending:${tokenHash}`;
const triesKey = (tokenHash: string) => `tries:${tokenHash}`;

function secondsUntil(expires: number): number {
  return Math.max(1, Math.min(FLOW_STORE_LIMITS.maxTtlSeconds, Math.ceil((expires - Date.now()) / 1000)));
}

/**
 * Checks the form and hashes the password. A problem is an answer (the page shows it beside its field), never an
 * error; the password is refused by the rules before anything is hashed.
 */
export async function prepareSignUp({ input }: { input: { deps: FlowDeps; email: string; password: string; name: string } }): Promise<PreparedSignUp> {
  const settings = settingsOf(input.deps);
  let email: string;
  try {
    email = normalizeAddress(input.deps.provider, input.email);
    if (!email.includes('@')) return { ok: false, field: 'email' };
  } catch {
    return { ok: false, field: 'email' };
  }
  let password: string;
  try {
    password = passwordForHashing(input.password, { minLength: settings.minLength });
    if (settings.breached && (await settings.breached(password))) return { ok: false, field: 'password', problem: 'breached' };
  } catch (err) {
    if (err instanceof InvalidPassword) return { ok: false, field: 'password', problem: String(err.cause?.problem ?? 'invalid') };
    throw err;
  }
  const hash = await (input.deps.provider as unknown as PasswordConfig).password.hasher.hash(password);
  const name = input.name.normalize('NFKC').trim().slice(0, MAX_NAME);
  return { ok: true, email, hash, ...(name ? { name } : {}) };
}

/** The address's owner, and whether it is an unproven password account that a proof of the address takes over. */
async function ownerOf(deps: FlowDeps, email: string): Promise<{ user: AdapterUser | null; claimable: boolean }> {
  const { adapter } = adapterOf(deps);
  const user = (await adapter.getUserByEmail(email)) as AdapterUser | null;
  // The hash is read for every address (a random id for nobody), so a known address costs what an unknown one does.
  const hash = await adapter.getPasswordHash!(user ? String(user.id) : randomUUID());
  return { user, claimable: user !== null && !user.emailVerified && typeof hash === 'string' && hash !== DROPPED_PASSWORD };
}

/** Keeps a pending sign-up under a new token and mails its proof (or, for `existing`, the notice). */
async function keepAndMail(deps: FlowDeps, pending: Omit<PendingSignUp, 'code' | 'expires'>): Promise<SentSignUp> {
  const settings = settingsOf(deps);
  const token = randomBytes(32).toString('base64url');
  const tokenHash = hashSignUpToken(token, secretOf(deps));
  const code = randomInt(0, 10 ** CODE_LENGTH).toString().padStart(CODE_LENGTH, '0');
  const expires = Date.now() + settings.maxAge * 1000;
  const entry: PendingSignUp = { ...pending, code: hashCode(secretOf(deps), tokenHash, code), expires };
  await deps.store.set(pendingKey(tokenHash), entry, secondsUntil(expires));
  const mail: SignUpMail = pending.existing
    ? { kind: 'existing', to: pending.email, signInUrl: `${deps.req.authUrl}/signin` }
    : { kind: 'verify', to: pending.email, url: signUpLink(deps, token), code, expires: new Date(expires) };
  try {
    await sendSignUpMail(deps, mail, await messagesFor(deps.req));
  } catch (err) {
    await deps.store.take(pendingKey(tokenHash)).catch(() => undefined);
    throw err;
  }
  return { tokenHash, expires };
}

/** The link in the mail: `GET {basePath}/signup/:provider?token=…`, coming back to the sign-up's destination. */
function signUpLink(deps: FlowDeps, token: string): string {
  const url = new URL(`${deps.req.authUrl}/signup/${encodeURIComponent(deps.provider.id)}`);
  url.searchParams.set('token', token);
  url.searchParams.set('callbackUrl', deps.callbackUrl);
  return url.href;
}

/**
 * Keeps the sign-up pending and mails the proof. An address that has an account gets the notice instead, through
 * the same steps (an entry that proves nothing, one mail), so the answer and its time are the same.
 */
export async function startSignUp({ input }: { input: { deps: FlowDeps; email: string; hash: string; name?: string } }): Promise<SentSignUp> {
  const { user, claimable } = await ownerOf(input.deps, input.email);
  const existing = user !== null && !claimable;
  return keepAndMail(input.deps, { email: input.email, hash: input.hash, ...(input.name ? { name: input.name } : {}), ...(existing ? { existing: true as const } : {}) });
}

/**
 * `createAccount: 'at-once'`: the account is made unverified with its password, and the proof mailed; an address
 * that has an account gets the notice and no account (`user` null).
 */
export async function createAtOnce({ input }: { input: { deps: FlowDeps; email: string; hash: string; name?: string } }): Promise<SentSignUp & { user: AdapterUser | null }> {
  const { deps, email, hash, name } = input;
  const { user: owner, claimable } = await ownerOf(deps, email);
  // An address with an account gets the notice; one with an unproven account gets a proof (its owner takes it over
  // by proving the address), never a second unproven account.
  if (owner) {
    return { ...(await keepAndMail(deps, { email, hash, ...(name ? { name } : {}), ...(claimable ? {} : { existing: true as const }) })), user: null };
  }
  const user = await createPasswordUser(deps.req.config, { id: randomUUID(), email, emailVerified: null, ...(name ? { name } : {}) } as AdapterUser, hash);
  return { ...(await keepAndMail(deps, { email, hash: '', userId: String(user.id) })), user };
}

/** Mails a new code and link for the pending sign-up (its old ones are spent), unless one went out too recently. */
export async function resendSignUp({ input }: { input: { deps: FlowDeps; tokenHash: string } }): Promise<SentSignUp | 'cooling' | 'dead'> {
  const { deps, tokenHash } = input;
  const { resendCooldown } = settingsOf(deps);
  if (resendCooldown > 0 && !(await deps.store.add(`cooldown:${tokenHash}`, 1, resendCooldown))) return 'cooling';
  const entry = await deps.store.take<PendingSignUp>(pendingKey(tokenHash));
  if (!entry || !(entry.expires > Date.now())) return 'dead';
  const { code: _code, expires: _expires, ...pending } = entry;
  const sent = await keepAndMail(deps, pending);
  if (resendCooldown > 0) await deps.store.add(`cooldown:${sent.tokenHash}`, 1, resendCooldown);
  return sent;
}

/**
 * One try at the mailed code, in the browser that signed up. Each try is counted first (atomically); a match takes
 * the pending sign-up (so the link dies with it); the last allowed miss takes it too. An entry for an address that
 * has an account never passes.
 */
export async function checkSignUpCode({ input }: { input: { deps: FlowDeps; tokenHash: string; code: string } }): Promise<SignUpCodeCheck> {
  const { deps, tokenHash } = input;
  const { maxAttempts } = settingsOf(deps);
  const entry = await deps.store.get<PendingSignUp>(pendingKey(tokenHash));
  if (!entry || typeof entry.code !== 'string' || !(entry.expires > Date.now())) return { result: 'dead' };
  const tries = await deps.store.increment(triesKey(tokenHash), secondsUntil(entry.expires));
  if (tries > maxAttempts) return { result: 'dead' };
  const typed = input.code.slice(0, MAX_TYPED_CODE).replace(/[\s-]/g, '');
  const want = Buffer.from(entry.code, 'hex');
  const got = Buffer.from(hashCode(secretOf(deps), tokenHash, typed), 'hex');
  if (got.length === want.length && timingSafeEqual(got, want) && !entry.existing) {
    const taken = await deps.store.take<PendingSignUp>(pendingKey(tokenHash));
    return taken ? { result: 'passed', entry: taken } : { result: 'dead' };
  }
  if (tries >= maxAttempts) {
    await deps.store.take(pendingKey(tokenHash));
    return { result: 'dead' };
  }
  return { result: 'wrong', left: maxAttempts - tries };
}

/** The link's token: takes its pending sign-up (single use, atomic), or null when it is unknown, spent or expired. */
export async function takeSignUpLink({ input }: { input: { deps: FlowDeps; token: string } }): Promise<PendingSignUp | null> {
  const { deps, token } = input;
  for (const secret of deps.req.config.secrets) {
    const entry = await deps.store.take<PendingSignUp>(pendingKey(hashSignUpToken(token, secret)));
    if (entry) return entry.expires > Date.now() && !entry.existing ? entry : null;
  }
  return null;
}

/**
 * The address is proven: the account is made (verified, with its password), or the unverified account of a sign-up
 * made at once is verified, or an unproven password account at this address is taken over (its password replaced by
 * this one, its sessions ended). An address someone else proved meanwhile has an account: Verification.
 */
export async function createAccount({ input }: { input: { deps: FlowDeps; entry: PendingSignUp } }): Promise<{ user: AdapterUser; created: boolean }> {
  const { deps, entry } = input;
  const { adapter } = adapterOf(deps);
  const now = new Date();
  if (entry.userId) {
    const user = (await adapter.getUser(entry.userId)) as AdapterUser | null;
    if (!user || user.email !== entry.email) throw new Verification('The account this link verifies is gone or has another address.');
    if (user.emailVerified) return { user, created: false };
    // Proven in a browser signed in as the account (the one that signed up): verified as it is. Proven anywhere else,
    // the mailbox's owner may be clicking a link that someone else's sign-up with their address sent them: the
    // account is taken over as by any other proof (password dropped, sessions ended), so a squatter keeps nothing.
    if ((await signedInUserId(deps.req)) !== String(user.id)) await claimUnverifiedAccount(deps.req, String(user.id));
    return { user: (await adapter.updateUser({ id: user.id, emailVerified: now })) as AdapterUser, created: false };
  }
  const owner = (await adapter.getUserByEmail(entry.email)) as AdapterUser | null;
  if (!owner) {
    const user = await createPasswordUser(deps.req.config, { id: randomUUID(), email: entry.email, emailVerified: now, ...(entry.name ? { name: entry.name } : {}) } as AdapterUser, entry.hash);
    return { user, created: true };
  }
  if (await isUnverifiedPasswordAccount(deps.req, owner)) {
    await claimUnverifiedAccount(deps.req, String(owner.id), entry.hash);
    const user = (await adapter.updateUser({ id: owner.id, emailVerified: now, name: entry.name ?? null })) as AdapterUser;
    return { user, created: false };
  }
  throw new Verification('The address has an account already (proven meanwhile).');
}
