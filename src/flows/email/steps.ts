// The e-mail flow's I/O, as plain async functions its machine invokes: storing, sending, consuming and revoking
// magic-link tokens, and finding or creating the user. Tokens are stored only as an HMAC of the raw token.
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import type { WrappedAdapter } from '../core/adapter-wrap.js';
import { MissingAdapter } from '../core/errors.js';
import type { AdapterUser } from '../core/types.js';
import { resolveEmailProvider, sendMagicLinkMail, type EmailConfig } from '../providers/email.js';
import { strategyFor, type SignInResult } from '../session/strategy.js';
import type { FlowServices } from './services.js';
import { issueSession } from './steps.js';

/** Longest token or address a link may carry; anything longer is not ours and never reaches the database. */
export const MAX_LINK_PARAM = 512;

export function emailProviderOf(s: FlowServices): EmailConfig {
  return s.provider as unknown as EmailConfig;
}

function adapterOf(s: FlowServices): WrappedAdapter {
  const adapter = s.req.config.adapter;
  if (!adapter) throw new MissingAdapter('E-mail sign-in needs an adapter.');
  return adapter;
}

/** The secrets that hash tokens, newest first: the provider's own, else the configuration's. */
function tokenSecrets(s: FlowServices): string[] {
  const own = emailProviderOf(s).secret;
  const list = own === undefined ? s.req.config.secrets : Array.isArray(own) ? own : [own];
  const secrets = list.filter((x) => typeof x === 'string' && x.length > 0);
  return secrets.length > 0 ? secrets : s.req.config.secrets;
}

/**
 * The stored form of a token: HMAC-SHA-256 keyed with one secret. Each secret of a rotation list hashes on its
 * own (never a joined string), so adding a secret keeps pending links working.
 *
 * @example hashToken('raw-token', process.env.AUTH_SECRET!) // 64 hex characters
 */
export function hashToken(token: string, secret: string): string {
  return createHmac('sha256', secret).update(`authchart-email:${token}`).digest('hex');
}

/** Makes a token, stores its hash for `email` until `now + maxAge`, and returns the raw token. */
export async function storeToken(s: FlowServices, email: string): Promise<{ token: string; expires: number }> {
  const provider = emailProviderOf(s);
  const token = provider.generateVerificationToken ? await provider.generateVerificationToken() : randomBytes(32).toString('hex');
  if (typeof token !== 'string' || token.length === 0 || token.length > MAX_LINK_PARAM) {
    throw new TypeError(`generateVerificationToken must return a non-empty string of at most ${MAX_LINK_PARAM} characters.`);
  }
  const expires = Date.now() + provider.maxAge * 1000;
  await adapterOf(s).createVerificationToken({ identifier: email, token: hashToken(token, tokenSecrets(s)[0]), expires: new Date(expires) });
  return { token, expires };
}

/** The magic link for a token: the provider's callback URL with callbackUrl, token and email. */
export function magicLink(s: FlowServices, email: string, token: string): string {
  const url = new URL(`${s.req.authUrl}/callback/${encodeURIComponent(s.provider.id)}`);
  url.searchParams.set('callbackUrl', s.callbackUrl);
  url.searchParams.set('token', token);
  url.searchParams.set('email', email);
  return url.href;
}

/** Sends the link with the provider's `sendVerificationRequest`, or the default nodemailer mail. */
export async function sendLink(s: FlowServices, input: { email: string; token: string; expires: number }): Promise<void> {
  const provider = resolveEmailProvider(emailProviderOf(s), s.req.config.env, s.req.origin);
  const send = provider.sendVerificationRequest ?? sendMagicLinkMail;
  await send({
    identifier: input.email,
    url: magicLink(s, input.email, input.token),
    expires: new Date(input.expires),
    token: input.token,
    provider,
    theme: s.req.config.theme,
    request: s.req.request,
  });
}

/** Deletes the token just stored (its mail could not be sent), so no usable link is left behind. */
export async function revokeToken(s: FlowServices, input: { email: string; token: string }): Promise<void> {
  await adapterOf(s).useVerificationToken({ identifier: input.email, token: hashToken(input.token, tokenSecrets(s)[0]) });
}

/**
 * Uses the token up: returns its expiry when a stored token matched `email` (and deletes it), else null.
 * Deletion is the adapter's atomic `useVerificationToken`, so of two concurrent uses at most one finds it.
 */
export async function consumeToken(s: FlowServices, input: { email: string; token: string }): Promise<{ expires: number } | null> {
  const adapter = adapterOf(s);
  const tried = new Set<string>();
  for (const secret of tokenSecrets(s)) {
    const hash = hashToken(input.token, secret);
    if (tried.has(hash)) continue;
    tried.add(hash);
    const found = await adapter.useVerificationToken({ identifier: input.email, token: hash });
    if (found) return { expires: new Date(found.expires).getTime() };
  }
  return null;
}

/**
 * Looks the link's token up without using it: its expiry when a stored token matches `email`, null when none does,
 * or 'unchecked' when the adapter has no `getVerificationToken` (an Auth.js adapter) and so cannot tell.
 */
export async function peekToken(s: FlowServices, input: { email: string; token: string }): Promise<{ expires: number } | null | 'unchecked'> {
  const adapter = adapterOf(s);
  if (!adapter.getVerificationToken) return 'unchecked';
  const tried = new Set<string>();
  for (const secret of tokenSecrets(s)) {
    const hash = hashToken(input.token, secret);
    if (tried.has(hash)) continue;
    tried.add(hash);
    const found = await adapter.getVerificationToken({ identifier: input.email, token: hash });
    if (found) return { expires: new Date(found.expires).getTime() };
  }
  return null;
}

/** The stored user with this address, if any. */
export async function findUser(s: FlowServices, email: string): Promise<AdapterUser | null> {
  return (await adapterOf(s).getUserByEmail(email)) as AdapterUser | null;
}

/** A new user for a verified address. */
export async function createEmailUser(s: FlowServices, email: string): Promise<AdapterUser> {
  return (await adapterOf(s).createUser({ id: randomUUID(), email, emailVerified: new Date() })) as AdapterUser;
}

/** Records that the user's address was verified just now. */
export async function markVerified(s: FlowServices, user: AdapterUser): Promise<AdapterUser> {
  return (await adapterOf(s).updateUser({ id: user.id, emailVerified: new Date() })) as AdapterUser;
}

/**
 * Issues the session. With database sessions, a browser signed in as someone else first loses that session:
 * following a link to another address switches the user instead of leaving a forgotten session row behind.
 */
export async function issueEmailSession(s: FlowServices, result: SignInResult): Promise<void> {
  const { req } = s;
  if (req.config.session.strategy === 'database') {
    const current = await strategyFor(req).currentUserId(req);
    const sessionToken = req.cookies[req.cookieOptions.sessionToken.name];
    if (current && sessionToken && current !== String(result.user.id)) await adapterOf(s).deleteSession(sessionToken);
  }
  await issueSession(s, result);
}
