// The e-mail flow's I/O, as plain async functions its machine invokes: normalising the address, finding its
// recipient, storing, sending, looking up, consuming and revoking magic-link tokens. Tokens are stored only as an
// HMAC of the raw token. Who the link signs in (a new or a verified user) is the standard sign-in tail's business.
import { messagesFor } from '../../core/messages/request.js';
import { createHmac, randomBytes } from 'node:crypto';
import { asciiEmailDomain } from '../../core/email-address.js';
import type { AdapterUser } from '../../core/types.js';
import { normalizeEmailAddress, resolveEmailProvider, sendMagicLinkMail } from '../../providers/email.js';
import type { FlowDeps } from '../runtime/contract.js';
import { codeKey, codeOptions, dropCode } from './codes.js';
import { adapterOf, defersSpend, emailProviderOf, tokenSecrets } from './deps.js';
import type { TokenSpend } from '../../session/spend.js';

export { emailProviderOf } from './deps.js';

export { MAX_LINK_PARAM, normalizeAddress } from '../../providers/email-identifier.js';
import { MAX_LINK_PARAM } from '../../providers/email-identifier.js';

/**
 * The stored form of a token: HMAC-SHA-256 keyed with one secret. Each secret of a rotation list hashes on its
 * own (never a joined string), so adding a secret keeps pending links working.
 *
 * @example hashToken('raw-token', process.env.AUTH_SECRET!) // 64 hex characters
 */
export function hashToken(token: string, secret: string): string {
  return createHmac('sha256', secret).update(`authchart-email:${token}`).digest('hex');
}

/** The stored user with this address, if any: the signIn callback is asked about them before a link is sent. */
export async function findRecipient(deps: FlowDeps, email: string): Promise<AdapterUser | null> {
  return (await adapterOf(deps).getUserByEmail(email)) as AdapterUser | null;
}

/** Makes a token, stores its hash for `email` until `now + maxAge`, and returns the raw token and its stored hash. */
export async function storeToken(deps: FlowDeps, email: string): Promise<{ token: string; tokenHash: string; expires: number }> {
  const provider = emailProviderOf(deps);
  const token = provider.generateVerificationToken ? await provider.generateVerificationToken() : randomBytes(32).toString('hex');
  if (typeof token !== 'string' || token.length === 0 || token.length > MAX_LINK_PARAM) {
    throw new TypeError(`generateVerificationToken must return a non-empty string of at most ${MAX_LINK_PARAM} characters.`);
  }
  const expires = Date.now() + provider.maxAge * 1000;
  const tokenHash = hashToken(token, tokenSecrets(deps)[0]);
  await adapterOf(deps).createVerificationToken({ identifier: email, token: tokenHash, expires: new Date(expires) });
  return { token, tokenHash, expires };
}

/** The magic link for a token: the provider's callback URL with callbackUrl, token and email. */
export function magicLink(deps: FlowDeps, email: string, token: string): string {
  const url = new URL(`${deps.req.authUrl}/callback/${encodeURIComponent(deps.provider.id)}`);
  url.searchParams.set('callbackUrl', deps.callbackUrl);
  url.searchParams.set('token', token);
  url.searchParams.set('email', email);
  return url.href;
}

/** Sends the link with the provider's `sendVerificationRequest`, or the default nodemailer mail. */
export async function sendLink(deps: FlowDeps, input: { email: string; token: string; expires: number; code?: string }): Promise<void> {
  const provider = resolveEmailProvider(emailProviderOf(deps), deps.req.config.env, deps.req.origin);
  const send = provider.sendVerificationRequest ?? sendMagicLinkMail;
  const messages = await messagesFor(deps.req);
  await send({
    identifier: input.email,
    url: magicLink(deps, input.email, input.token),
    expires: new Date(input.expires),
    token: input.token,
    ...(input.code !== undefined ? { code: input.code } : {}),
    provider,
    theme: deps.req.config.theme,
    request: deps.req.request,
    locale: messages.locale,
    messages,
  });
}

/** Deletes the token just stored (its mail could not be sent), so no usable link is left behind. */
export async function revokeToken(deps: FlowDeps, input: { email: string; token: string }): Promise<void> {
  await adapterOf(deps).useVerificationToken({ identifier: input.email, token: hashToken(input.token, tokenSecrets(deps)[0]) });
}

/**
 * Proves the token: returns its expiry when a stored token matched `email`, else null. The token comes as the link's
 * raw token, or (a matched code) as the hash the flow cookie kept. Each hash is claimed first (`config.singleUse`):
 * of concurrent uses at most one goes on, whether or not the adapter's take is atomic.
 *
 * With an adapter that can look a token up and has transactions ({@link defersSpend}), the token is only looked up
 * here and comes back as `spend`: the session issue uses it up in the transaction that writes the session, and gives
 * the claim back if that fails, so an error answer never burns the link. Otherwise it is taken here with the adapter's
 * `useVerificationToken`, and a link used up this way takes its code with it.
 */
export async function consumeToken(deps: FlowDeps, input: { email: string; token?: string; tokenHash?: string }): Promise<{ expires: number; spend?: TokenSpend } | null> {
  const adapter = adapterOf(deps);
  const defer = defersSpend(deps);
  const tried = new Set<string>();
  const hashes = input.tokenHash !== undefined ? [input.tokenHash] : tokenSecrets(deps).map((secret) => hashToken(input.token ?? '', secret));
  for (const hash of hashes) {
    if (tried.has(hash)) continue;
    tried.add(hash);
    if (!(await claim(deps, hash))) return null;
    let found;
    try {
      const key = { identifier: input.email, token: hash };
      found = defer ? await adapter.getVerificationToken!(key) : await adapter.useVerificationToken(key);
    } catch (err) {
      // The adapter did not take it: the link stays usable once the store is back.
      await deps.req.config.singleUse.delete(hash).catch(() => undefined);
      throw err;
    }
    if (found) {
      const expires = new Date(found.expires).getTime();
      // The code sent beside the link goes once the token is spent (it is put back on a match until then).
      if (defer) return { expires, spend: { identifier: input.email, token: hash, ...(codeOptions(deps) ? { forget: codeKey(hash) } : {}) } };
      if (input.tokenHash === undefined) await dropCode(deps, hash);
      return { expires };
    }
  }
  return null;
}

/**
 * Claims the hashed token for this request, atomically (the first claim wins; later ones within ten minutes lose),
 * so a token is taken at most once even when the adapter's take is a read then a delete (@auth/unstorage-adapter).
 * A store that cannot answer is an error: a take it cannot guard is refused, never let through twice.
 */
async function claim(deps: FlowDeps, hash: string): Promise<boolean> {
  try {
    await deps.req.config.singleUse.consume(hash, 1);
    return true;
  } catch (refusal) {
    if (refusal instanceof Error) throw refusal;
    return false;
  }
}

/**
 * Looks the link's token up without using it: its expiry when a stored token matches `email`, null when none does,
 * or 'unchecked' when the adapter has no `getVerificationToken` (an Auth.js adapter) and so cannot tell.
 */
export async function peekToken(deps: FlowDeps, input: { email: string; token: string }): Promise<{ expires: number } | null | 'unchecked'> {
  const adapter = adapterOf(deps);
  if (!adapter.getVerificationToken) return 'unchecked';
  const tried = new Set<string>();
  for (const secret of tokenSecrets(deps)) {
    const hash = hashToken(input.token, secret);
    if (tried.has(hash)) continue;
    tried.add(hash);
    const found = await adapter.getVerificationToken({ identifier: input.email, token: hash });
    if (found) return { expires: new Date(found.expires).getTime() };
  }
  return null;
}
