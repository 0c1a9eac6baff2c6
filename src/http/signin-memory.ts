// What the sign-in pages remember between one request and the next: the identifier typed into a password form
// that failed (so only the wrong field is typed again; never the password), the address a sign-in link was just sent
// to (named on the check-your-email page, which can send it again), and the return address, which serves the one
// sign-in it was made for and is forgotten once that sign-in succeeds.
import { identifierField, type IdentifiedProvider } from '../core/credentials-identifier.js';
import type { ResolvedProvider } from '../core/provider.js';
import { bodyString, type AuthRequest } from './request.js';
import { clearCookie, setCookie } from './response.js';

/** Long enough for any address or username; a longer value is not put back. */
const MAX_IDENTIFIER = 320;

type Memory = 'typed-identifier' | 'sent-to';

function memoryCookie(req: AuthRequest, what: Memory): { name: string; options: AuthRequest['cookieOptions']['callbackUrl']['options'] } {
  const session = req.cookieOptions.sessionToken.name;
  const name = /session-token$/.test(session) ? session.replace(/session-token$/, what) : `${session}.${what}`;
  // A few minutes: long enough to read the page and act on it, short enough not to linger.
  return { name, options: { ...req.cookieOptions.callbackUrl.options, httpOnly: true, maxAge: what === 'sent-to' ? 15 * 60 : 5 * 60 } };
}

/**
 * After a credentials sign-in failed: keeps what was typed as the identifier, in a short-lived HttpOnly cookie the
 * sign-in page reads once. Password fields are never kept.
 */
export function rememberTypedIdentifier(req: AuthRequest, provider: ResolvedProvider): void {
  if (provider.type !== 'credentials') return;
  const field = identifierField(provider as IdentifiedProvider);
  const value = field ? bodyString(req, field)?.trim() : undefined;
  if (!value || value.length > MAX_IDENTIFIER) return;
  const { name, options } = memoryCookie(req, 'typed-identifier');
  setCookie(req, { name, value, options });
}

/** After a sign-in link went out: the address it went to, for the check-your-email page. */
export function rememberSentTo(req: AuthRequest): void {
  const value = bodyString(req, 'email')?.trim();
  if (!value || value.length > MAX_IDENTIFIER) return;
  const { name, options } = memoryCookie(req, 'sent-to');
  setCookie(req, { name, value, options });
}

/** The address the last sign-in link of this browser went to, if it was sent in the last minutes. */
export function sentTo(req: AuthRequest): string | undefined {
  const value = req.cookies[memoryCookie(req, 'sent-to').name];
  return value && value.length <= MAX_IDENTIFIER ? value : undefined;
}

/** The identifier a failed password form left for this page view, if any; read once (the cookie is cleared). */
export function takeTypedIdentifier(req: AuthRequest): string | undefined {
  const { name, options } = memoryCookie(req, 'typed-identifier');
  const value = req.cookies[name];
  if (value === undefined) return undefined;
  clearCookie(req, name, options);
  return value && value.length <= MAX_IDENTIFIER ? value : undefined;
}

/** After a sign-in succeeded: the saved return address has served its sign-in; later ones start from their own. */
export function forgetReturnAddress(req: AuthRequest): void {
  const { name, options } = req.cookieOptions.callbackUrl;
  if (req.cookies[name] !== undefined || req.setCookies.some((c) => c.name === name && c.options.maxAge !== 0)) clearCookie(req, name, options);
}
