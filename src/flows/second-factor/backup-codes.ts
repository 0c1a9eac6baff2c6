// Backup codes: ten single-use codes shown once, stored only as SHA-256 hashes (each carries 50 random bits,
// so a plain hash is enough; no password stretching needed).
import { createHash, randomInt } from 'node:crypto';

export const BACKUP_CODE_COUNT = 10;
// No 0/O, 1/l/I: codes are read off paper.
const ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

/** One code as shown: `xxxxx-xxxxx`. */
function newCode(): string {
  let s = '';
  for (let i = 0; i < 10; i++) s += ALPHABET[randomInt(ALPHABET.length)];
  return `${s.slice(0, 5)}-${s.slice(5)}`;
}

/** Ten fresh codes. */
export function newBackupCodes(): string[] {
  return Array.from({ length: BACKUP_CODE_COUNT }, newCode);
}

/** Whether a typed code has the shape of a backup code (any case, dash optional). */
export function looksLikeBackupCode(typed: string): boolean {
  return /^[a-z0-9]{5}-?[a-z0-9]{5}$/i.test(typed.trim());
}

/** The stored form of a code: the hash of its letters, lower case, without the dash. */
export function hashBackupCode(typed: string): string {
  return createHash('sha256').update(typed.trim().toLowerCase().replace('-', '')).digest('base64url');
}
