// Second factors as a test sees them: an active authenticator app, backup code or passkey stored for a user, the
// codes a person would type (computed from the key, or read off an enrolment page), and what the stage leaves in a
// response.
import { randomUUID } from 'node:crypto';
import { decodeBase32IgnorePadding } from '@oslojs/encoding';
import type { FactorAdapterMethods } from '../../src/core/factors.js';
import { hashBackupCode, newBackupCodes } from '../../src/flows/second-factor/backup-codes.js';
import { sealFactorKey } from '../../src/flows/second-factor/secret-box.js';
import { newTotpKey, totpCode, totpStep } from '../../src/flows/second-factor/totp.js';
import type { Adapter } from '../../src/core/adapter.js';
import { SoftAuthenticator } from '../flows/webauthn/webauthn-authenticator.js';
import { ORIGIN, TEST_SECRET } from './auth-app.js';

/** The cookie of a sign-in paused at the second-factor stage (default cookie names). */
export const STAGE_COOKIE = 'authchart.flow-second-factor';
export const SESSION_COOKIE = 'authchart.session-token';

type Store = Pick<FactorAdapterMethods, 'createFactor'>;

/** Stores an active authenticator app for `userId` (its key sealed under `secret`) and returns the key. */
export async function activeTotp(adapter: Store, userId: string, secret = TEST_SECRET): Promise<Uint8Array> {
  const key = newTotpKey();
  await adapter.createFactor({ id: `totp-${randomUUID()}`, userId, kind: 'totp', secret: sealFactorKey([secret], key), label: 'App', createdAt: new Date(), activatedAt: new Date(), lastStep: null });
  return key;
}

/** Stores one active backup code for `userId` (hashed, as the library stores them) and returns it as shown. */
export async function activeBackupCode(adapter: Store, userId: string): Promise<string> {
  const [code] = newBackupCodes();
  await adapter.createFactor({ id: `backup-${randomUUID()}`, userId, kind: 'backup', secret: hashBackupCode(code), createdAt: new Date(), activatedAt: new Date() });
  return code;
}

/** The app's code for now (or `offset` steps away). */
export const codeNow = (key: Uint8Array, offset = 0): string => totpCode(key, totpStep(Date.now()) + offset);

/** A six-digit code that is not `code`. */
export const otherCode = (code: string): string => (code === '000000' ? '111111' : '000000');

/** The key an enrolment page shows for typing by hand, as bytes. */
export function keyOnPage(page: string): Uint8Array {
  const typed = /data-copy-value>([A-Z2-7 ]+)</.exec(page)?.[1];
  if (!typed) throw new Error('no key on the page');
  return decodeBase32IgnorePadding(typed.replace(/ /g, ''));
}

/** Whether a response sets a (non-clearing) session cookie. */
export const setsSession = (res: { setCookie: readonly string[] }): boolean =>
  res.setCookie.some((l) => l.startsWith(`${SESSION_COOKIE}=`) && !/max-age=0/i.test(l));

/** The stage cookie a response sets (sealed paused tail), if any. */
export function stageCookieOf(res: { setCookie: readonly string[] }): string | undefined {
  const line = res.setCookie.find((l) => l.startsWith(`${STAGE_COOKIE}=`) && !/max-age=0/i.test(l));
  return line?.slice(STAGE_COOKIE.length + 1).split(';')[0];
}

/** Registers a software passkey for `userId` (its account and authenticator rows, as a registration stores them). */
export async function registeredPasskey(adapter: Pick<Adapter, 'linkAccount' | 'createAuthenticator'>, userId: string, provider = 'passkey'): Promise<SoftAuthenticator> {
  const device = new SoftAuthenticator(ORIGIN);
  const row = device.row(userId);
  await adapter.linkAccount!({ provider, type: 'webauthn', providerAccountId: row.providerAccountId, userId });
  await adapter.createAuthenticator!(row);
  return device;
}
