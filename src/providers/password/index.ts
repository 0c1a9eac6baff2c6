// The Password provider and what an app needs beside it: the hashers, the rules, the breached-password check.
export { Password, type PasswordConfig, type PasswordOptions, type PasswordSettings, type SignUpMail, type SignUpMailContext, type SignUpOptions, type SignUpSettings } from './provider.js';
export { argon2id, OWASP_ARGON2ID, type Argon2idParameters, type PasswordHasher } from './hash.js';
export { hashNewPassword, type NewPasswordOptions } from './new-password.js';
export { breachedRange, type BreachedLookup, type BreachedRangeOptions } from './breached.js';
export { MIN_PASSWORD_LENGTH, MAX_PASSWORD_LENGTH } from './rules.js';
export type { VerifyImported } from './imported.js';
export type { PasswordMail, PasswordMailOptions } from './mail.js';
