// Double-submit CSRF protection: the cookie holds `token|hmac(secret, token)`, a state-changing POST
// must echo `token` in its body. Each secret of a rotation list is tried on its own.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { MissingCSRF } from '../core/errors.js';
import { setCookie } from './response.js';
import { bodyString, type AuthRequest } from './request.js';

function sign(secret: string, token: string): string {
  return createHmac('sha256', secret).update(`authchart-csrf:${token}`).digest('hex');
}

function equal(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The token carried by a valid CSRF cookie, if the cookie is present and signed by one of our secrets. */
function tokenFromCookie(req: AuthRequest): string | undefined {
  const value = req.cookies[req.cookieOptions.csrfToken.name];
  if (!value) return undefined;
  const [token, hash] = value.split('|');
  if (!token || !hash || !/^[0-9a-f]{64}$/.test(token)) return undefined;
  return req.config.secrets.some((s) => equal(sign(s, token), hash)) ? token : undefined;
}

/**
 * Returns this request's CSRF token (setting a fresh cookie when the current one is missing or invalid)
 * and whether the POST body echoed it.
 */
export function csrf(req: AuthRequest): { token: string; verified: boolean } {
  const existing = tokenFromCookie(req);
  if (existing) {
    const sent = bodyString(req, 'csrfToken');
    return { token: existing, verified: req.method === 'POST' && sent !== undefined && equal(sent, existing) };
  }
  const token = randomBytes(32).toString('hex');
  setCookie(req, { name: req.cookieOptions.csrfToken.name, value: `${token}|${sign(req.config.secrets[0], token)}`, options: req.cookieOptions.csrfToken.options });
  return { token, verified: false };
}

/** Throws MissingCSRF unless the request passed the double-submit check (or the check is switched off). */
export function requireCsrf(req: AuthRequest): void {
  if (req.config.skipCSRFCheck) return;
  if (!csrf(req).verified) throw new MissingCSRF('CSRF token was missing or did not match the cookie.');
}

/** A fresh token and its cookie value, for server-side calls that post to authchart's own routes. */
export function mintCsrf(secret: string): { token: string; cookieValue: string } {
  const token = randomBytes(32).toString('hex');
  return { token, cookieValue: `${token}|${sign(secret, token)}` };
}
