// The steps of a password change for a signed-in user: read whether they have a password, check the current one
// (counted per account, so a stolen session cannot guess it), check and hash the new one, store it only over the
// hash that was checked, and tell the user by mail.
import { InvalidPassword } from '../../core/errors.js';
import { messagesFor } from '../../core/messages/request.js';
import { isPasswordProvider } from '../../core/provider.js';
import type { AdapterUser } from '../../core/types.js';
import { configuredMailer, sendNoticeMail } from '../../providers/email.js';
import { verifyImportedHash } from '../../providers/password/imported.js';
import { hashNewPassword } from '../../providers/password/new-password.js';
import type { PasswordConfig, PasswordSettings } from '../../providers/password/provider.js';
import { passwordForHashing } from '../../providers/password/rules.js';
import type { SignedInDeps } from '../runtime/signed-in.js';
import type { InternalConfig } from '../../core/config.js';
import { passwordAdapter } from './adapter.js';

/** Wrong current passwords an account may send within {@link WRONG_WINDOW_S} before its tries are refused unheard. */
export const MAX_WRONG_CURRENT = 5;
export const WRONG_WINDOW_S = 15 * 60;

/** The configured Password provider's settings (the flow is registered only when there is one). */
export function passwordSettingsOf(config: SignedInDeps['req']['config']): PasswordSettings {
  for (const provider of config.providersById.values()) if (isPasswordProvider(provider)) return (provider as unknown as PasswordConfig).password;
  throw new Error('The change-password flow needs a Password provider.');
}

const adapterOf = (deps: { req: { config: Pick<InternalConfig, 'adapter'> } }) => passwordAdapter(deps.req.config);

/** The user's stored hash, or null for a user without a password (signed in with OAuth, a link or a passkey). */
export async function loadHash({ input }: { input: { deps: SignedInDeps; userId: string } }): Promise<string | null> {
  return (await adapterOf(input.deps).getPasswordHash(input.userId)) ?? null;
}

/**
 * How the current password compared with the hash stored now (`hash`, which the new one may replace): `none` for a
 * user without a password, `limited` when the account sent too many wrong ones lately (nothing hashed).
 */
export type CurrentCheck = { result: 'match' | 'none'; hash: string | null } | { result: 'wrong' | 'limited' };

const wrongKey = (userId: string) => `wrong:${userId}`;

/**
 * Checks the current password against the stored hash. Wrong ones are counted per account in the flow store (shared
 * by every instance and every browser of the user), so restarting the flow or opening another browser gives no more.
 */
export async function checkCurrent({ input }: { input: { deps: SignedInDeps; userId: string; password: string } }): Promise<CurrentCheck> {
  const { deps, userId, password } = input;
  const hash = await loadHash({ input: { deps, userId } });
  if (hash === null) return { result: 'none', hash };
  const wrong = (await deps.store.get<number>(wrongKey(userId))) ?? 0;
  if (wrong >= MAX_WRONG_CURRENT) return { result: 'limited' };
  const { hasher, verifyImported } = passwordSettingsOf(deps.req.config);
  let match: boolean | undefined = false;
  try {
    // A hash of another format (imported, not yet replaced at a sign-in) is checked as the sign-in checks it.
    match = hasher.recognizes(hash) ? await hasher.verify(hash, passwordForHashing(password)) : await verifyImportedHash(hash, password, verifyImported);
  } catch (err) {
    if (!(err instanceof InvalidPassword)) throw err;
  }
  if (match === undefined) throw new Error('The stored password hash is of a format neither the hasher, bcrypt nor `verifyImported` knows.');
  if (match) return { result: 'match', hash };
  return { result: (await deps.store.increment(wrongKey(userId), WRONG_WINDOW_S)) > MAX_WRONG_CURRENT ? 'limited' : 'wrong' };
}

/** A new password refused by a rule: the rule's name, for the message beside the field. */
export type NewPasswordProblem = 'too_short' | 'too_long' | 'invalid' | 'breached';

/** The new password's hash, or the rule it breaks. */
export async function hashNew({ input }: { input: { deps: SignedInDeps; password: string } }): Promise<{ hash: string } | { problem: NewPasswordProblem }> {
  const { hasher, change } = passwordSettingsOf(input.deps.req.config);
  try {
    return { hash: await hashNewPassword(input.password, { hasher, ...(change?.minLength ? { minLength: change.minLength } : {}), ...(change?.breached ? { breached: change.breached } : {}) }) };
  } catch (err) {
    if (!(err instanceof InvalidPassword)) throw err;
    const problem = err.problem;
    return { problem: problem === 'too_short' || problem === 'too_long' || problem === 'breached' ? problem : 'invalid' };
  }
}

/**
 * Stores the new hash only while the stored one is still the one checked (`expected`): of two changes at once, one
 * wins and the other is asked again. A user who had no password gets one unconditionally.
 */
export async function storeHash({ input }: { input: { deps: SignedInDeps; userId: string; hash: string; expected: string | null } }): Promise<boolean> {
  const { setPasswordHash } = adapterOf(input.deps);
  return setPasswordHash(input.userId, input.hash, input.expected ?? undefined);
}

/** Tells the user by mail that the password changed: the app's `notify`, else the Email provider's server. Best effort. */
export async function notifyChanged({ input }: { input: { deps: SignedInDeps; userId: string } }): Promise<void> {
  const { req } = input.deps;
  try {
    const user = (await req.config.adapter?.getUser(input.userId)) as AdapterUser | null | undefined;
    if (!user?.email) return;
    const messages = await messagesFor(req);
    const host = new URL(req.origin).host;
    const subject = messages.t('changePassword.mailSubject', { host });
    const text = messages.t('changePassword.mailText', { host });
    const { change } = passwordSettingsOf(req.config);
    if (change?.notify) return void (await change.notify({ user, subject, text }));
    const provider = configuredMailer(req.config, req.origin);
    if (provider?.server) await sendNoticeMail({ provider, to: user.email, subject, text });
  } catch (err) {
    req.config.logger.warn('password-change-notice-failed', `The password-change notice could not be sent: ${(err as Error).message}`);
  }
}
