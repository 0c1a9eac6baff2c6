// The steps of a change of e-mail address for a signed-in user: a code mailed to the new address proves it; only then
// does it replace the old one, whose owner is told by mail with a single-use link (hashed in the adapter's
// verification tokens, 7 days) that puts the old address back and ends every session. An address that already
// belongs to another account gets the same answer and no mail: nothing says it has an account.
import { createHmac, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import type { RequestContext } from '../../core/request-context.js';
import { messagesFor } from '../../core/messages/request.js';
import type { AdapterUser } from '../../core/types.js';
import { configuredMailer, normalizeEmailAddress, sendNoticeMail } from '../../providers/email.js';
import type { SignedInDeps } from '../runtime/signed-in.js';

/** Wrong codes before a code is dead. */
export const CHANGE_EMAIL_TRIES = 5;
/** How long the mailed code is good (seconds). */
export const CHANGE_EMAIL_CODE_TTL_S = 15 * 60;
/** How long the old address's way back stays usable. */
export const REVERT_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** The longest address taken. */
const MAX_ADDRESS = 320;

/** What a requested address came to: a problem shown beside the field, or a code on its way (or, taken, seemingly so). */
export type AddressRequest = { problem: 'invalid' | 'same' } | { tokenHash: string; email: string };
/** One try at the code. */
export type AddressCodeCheck = { result: 'passed'; email: string } | { result: 'wrong'; left: number } | { result: 'dead' };

interface PendingCode {
  userId: string;
  email: string;
  hash: string;
}

const mac = (secret: string, label: string, value: string) => createHmac('sha256', secret).update(`authchart-change-email-${label}:${value}`).digest('hex');
const codeKey = (tokenHash: string) => `code:${tokenHash}`;
const triesKey = (tokenHash: string) => `tries:${tokenHash}`;

function adapterOf(req: RequestContext) {
  const adapter = req.config.adapter;
  if (!adapter?.getUser || !adapter.getUserByEmail || !adapter.updateUser || !adapter.createVerificationToken || !adapter.useVerificationToken) {
    throw new Error('Changing the e-mail address needs an adapter with getUser, getUserByEmail, updateUser and verification tokens.');
  }
  return adapter as typeof adapter & Required<Pick<typeof adapter, 'getUser' | 'getUserByEmail' | 'updateUser' | 'createVerificationToken' | 'useVerificationToken'>>;
}

/** Sends a mail in the background: its time never shows in the answer, and a failure is logged. */
function sendLater(req: RequestContext, to: string, subject: string, text: string): void {
  const provider = configuredMailer(req.config, req.origin);
  const fail = (err: unknown) => req.config.logger.error(err instanceof Error ? err : new Error(String(err)));
  if (!provider) return fail(new Error('Changing the e-mail address needs an e-mail provider with a `server` to send its mails.'));
  void sendNoticeMail({ provider, to, subject, text }).catch(fail);
}

/**
 * A new address asked for: normalised and checked, then a 6-digit code mailed to it. An address of another account
 * is answered alike (a token hash, nothing stored, no mail), so the answer and its time say nothing of it.
 */
export async function requestAddressChange({ input }: { input: { deps: SignedInDeps; userId: string; email: string } }): Promise<AddressRequest> {
  const { deps, userId } = input;
  const { req } = deps;
  let email: string;
  try {
    if (input.email.length > MAX_ADDRESS) throw new TypeError('too long');
    email = normalizeEmailAddress(input.email);
  } catch {
    return { problem: 'invalid' };
  }
  const adapter = adapterOf(req);
  const user = (await adapter.getUser(userId)) as AdapterUser | null;
  if (user?.email === email) return { problem: 'same' };
  const tokenHash = mac(req.config.secrets[0]!, 'token', randomBytes(32).toString('hex'));
  const owner = await adapter.getUserByEmail(email);
  const code = randomInt(0, 1_000_000).toString().padStart(6, '0');
  // The same write either way (for a taken address, a hash of nothing anyone was sent, which no code matches), so
  // the answer's time says nothing either.
  const hash = mac(req.config.secrets[0]!, 'code', owner ? randomBytes(32).toString('hex') : `${tokenHash}:${code}`);
  const entry: PendingCode = { userId, email, hash };
  await deps.store.set(codeKey(tokenHash), entry, CHANGE_EMAIL_CODE_TTL_S);
  if (owner) return { tokenHash, email };
  const i18n = await messagesFor(req);
  const host = new URL(req.origin).host;
  sendLater(req, email, i18n.t('changeEmail.codeSubject', { host }), `${i18n.t('changeEmail.codeText', { host })}\n\n${code}\n`);
  return { tokenHash, email };
}

/**
 * One try at the code: counted first, in one atomic step (parallel tries compare no more than the allowed number);
 * a match takes the code, so of two right answers at once only one passes. A code for another user is never theirs.
 */
export async function checkAddressCode({ input }: { input: { deps: SignedInDeps; userId: string; tokenHash: string; code: string } }): Promise<AddressCodeCheck> {
  const { deps, userId, tokenHash } = input;
  const tries = await deps.store.increment(triesKey(tokenHash), CHANGE_EMAIL_CODE_TTL_S);
  if (tries > CHANGE_EMAIL_TRIES) return { result: 'dead' };
  const entry = await deps.store.get<PendingCode>(codeKey(tokenHash));
  const typed = input.code.slice(0, 32).replace(/[\s-]/g, '');
  const matched =
    entry !== null &&
    entry !== undefined &&
    entry.userId === userId &&
    deps.req.config.secrets.some((secret) => {
      const want = Buffer.from(entry.hash, 'hex');
      const got = Buffer.from(mac(secret, 'code', `${tokenHash}:${typed}`), 'hex');
      return want.length === got.length && timingSafeEqual(want, got);
    });
  if (matched) return (await deps.store.take(codeKey(tokenHash))) ? { result: 'passed', email: entry.email } : { result: 'dead' };
  if (tries >= CHANGE_EMAIL_TRIES) {
    await deps.store.take(codeKey(tokenHash));
    return { result: 'dead' };
  }
  return { result: 'wrong', left: CHANGE_EMAIL_TRIES - tries };
}

/** The verification-token identifier of a way back: the user and the address it restores. */
export function revertIdentifier(userId: string, email: string): string {
  return `authchart-email-revert:${userId}:${email}`;
}

/**
 * The stored form of a way-back token (the raw one is only in the mail): an HMAC keyed with one secret. It is made
 * with the first secret; the route tries each secret of the rotation list, so a link mailed before a new secret was
 * put first still works for its 7 days.
 */
export function revertTokenHash(secret: string, token: string): string {
  return mac(secret, 'revert', token);
}

/**
 * Before the new address replaces the old one: it is still nobody else's, and the old address (if any) is sent its
 * way back, a single-use link valid 7 days. `taken`: another account took the address since the code was sent.
 */
export async function prepareAddressChange({ input }: { input: { deps: SignedInDeps; userId: string; email: string } }): Promise<{ applied: true } | { taken: true }> {
  const { deps, userId, email } = input;
  const { req } = deps;
  const adapter = adapterOf(req);
  const owner = await adapter.getUserByEmail(email);
  if (owner && owner.id !== userId) return { taken: true };
  const previous = ((await adapter.getUser(userId)) as AdapterUser | null)?.email;
  if (previous && previous !== email) {
    const token = randomBytes(32).toString('base64url');
    await adapter.createVerificationToken({ identifier: revertIdentifier(userId, previous), token: revertTokenHash(req.config.secrets[0]!, token), expires: new Date(Date.now() + REVERT_TTL_MS) });
    const url = `${req.authUrl}/email/revert?${new URLSearchParams({ user: userId, email: previous, token })}`;
    const i18n = await messagesFor(req);
    const host = new URL(req.origin).host;
    sendLater(req, previous, i18n.t('changeEmail.noticeSubject', { host }), `${i18n.t('changeEmail.noticeText', { host, email })}\n\n${url}\n`);
  }
  return { applied: true };
}
