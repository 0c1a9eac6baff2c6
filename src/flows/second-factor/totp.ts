// Authenticator-app codes (RFC 6238: 6 digits, 30-second steps, one step of drift either way) on @oslojs/otp's
// HOTP, so the step a code matched is known and can be spent; keys, otpauth:// URIs and their QR codes.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { encodeBase32NoPadding } from '@oslojs/encoding';
import { createTOTPKeyURI, generateHOTP } from '@oslojs/otp';
import { lazy } from '../../core/lazy.js';

const loadQr = lazy(() => import('uqr'));

export const TOTP_PERIOD = 30;
export const TOTP_DIGITS = 6;
/** Steps either side of now a code may come from (clock drift between phone and server). */
const DRIFT = 1;

/** A new 160-bit key (RFC 4226's recommended length). */
export function newTotpKey(): Uint8Array {
  return new Uint8Array(randomBytes(20));
}

/** The `otpauth://totp/...` URI an authenticator app enrols from. */
export function totpUri(issuer: string, account: string, key: Uint8Array): string {
  return createTOTPKeyURI(issuer, account, key, TOTP_PERIOD, TOTP_DIGITS);
}

/** The time step of `at` (ms). */
export function totpStep(at: number): number {
  return Math.floor(at / 1000 / TOTP_PERIOD);
}

/** The code of a step (tests and the demo compute codes with it). */
export function totpCode(key: Uint8Array, step: number): string {
  return generateHOTP(key, BigInt(step), TOTP_DIGITS);
}

/** The step (now, or one either side) whose code `code` is; undefined when none is. */
export function matchingStep(key: Uint8Array, code: string, at: number): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined;
  const now = totpStep(at);
  let found: number | undefined;
  // Every candidate is compared, in constant time, whatever matched first.
  for (let step = now - DRIFT; step <= now + DRIFT; step++) {
    if (timingSafeEqual(Buffer.from(totpCode(key, step)), Buffer.from(code)) && found === undefined) found = step;
  }
  return found;
}

/** The URI as a QR code in SVG, rendered on the server (no network, no script). */
export async function qrSvg(uri: string): Promise<string> {
  const { renderSVG } = await loadQr();
  return renderSVG(uri, { border: 2 });
}

/** The key in base32 for typing into an app by hand, in groups of four. */
export function base32Key(key: Uint8Array): string {
  return encodeBase32NoPadding(key).replace(/(.{4})(?=.)/g, '$1 ');
}
