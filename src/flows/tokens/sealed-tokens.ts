// Provider access and refresh tokens at rest, encrypted (JWE dir + A256CBC-HS512) under a key derived from the auth secret, as TOTP
// keys are: a leaked accounts table yields no access or refresh tokens. An adapter decorator, opt-in. Rotation as
// for sessions: sealed with the first secret, opened with any; each token is bound to its account and field.
import { createHash } from 'node:crypto';
import type { Adapter, TokenRefreshState } from '../../core/adapter.js';
import type { AdapterAccount } from '../../core/types.js';
import { decryptJwe, encryptJwe } from '../../session/jwe.js';
import { deriveSessionKey } from '../../session/keys.js';

const SALT = 'authchart.provider-tokens';
/** What a sealed value starts with; a stored value without it is a token from before encryption was turned on. */
export const SEALED_PREFIX = 'sealed.';
// The ID token stays readable: it is no credential for the provider's APIs, and logout needs it (its sid for
// back-channel logout, the token itself as RP-initiated logout's id_token_hint).
const FIELDS = ['access_token', 'refresh_token'] as const;

/** Options of {@link encryptProviderTokens}. */
export interface EncryptProviderTokensOptions {
  /** The auth secret, or secrets newest first (the first seals; any opens): the same list as `secret` in the config. */
  secret: string | readonly string[];
}

const enc = /* @__PURE__ */ new TextEncoder();
const dec = /* @__PURE__ */ new TextDecoder();
const secretsOf = (secret: string | readonly string[]) => (typeof secret === 'string' ? [secret] : [...secret]);
const bindingOf = (a: Pick<AdapterAccount, 'provider' | 'providerAccountId'>, field: string) =>
  createHash('sha256').update(`${a.provider.length}:${a.provider}:${a.providerAccountId}:${field}`).digest('base64url');

/** Seals one token of an account. */
export function sealProviderToken(secrets: readonly string[], account: Pick<AdapterAccount, 'provider' | 'providerAccountId'>, field: string, token: string): string {
  const { key, kid } = deriveSessionKey(secrets[0]!, SALT);
  return SEALED_PREFIX + encryptJwe(enc.encode(token), key, { kid, bnd: bindingOf(account, field) });
}

/** Opens one stored token; a plain (older) value is returned as it is. Throws when no secret sealed it, or it was moved or altered. */
export function openProviderToken(secrets: readonly string[], account: Pick<AdapterAccount, 'provider' | 'providerAccountId'>, field: string, stored: string): string {
  if (!stored.startsWith(SEALED_PREFIX)) return stored;
  const keys = secrets.map((s) => deriveSessionKey(s, SALT));
  const { plaintext, header } = decryptJwe(stored.slice(SEALED_PREFIX.length), (h) => keys.find((k) => k.kid === h.kid)?.key);
  // The header is authenticated: a token copied to another account or field fails here.
  if (header.bnd !== bindingOf(account, field)) throw new Error(`The stored ${field} of this account was sealed for another account or field.`);
  return dec.decode(plaintext);
}

function mapTokens<T extends Record<string, unknown>>(account: Pick<AdapterAccount, 'provider' | 'providerAccountId'>, tokens: T, fn: (field: string, value: string) => string): T {
  const out: Record<string, unknown> = { ...tokens };
  for (const field of FIELDS) {
    const value = out[field];
    if (typeof value === 'string' && value !== '') out[field] = fn(field, value);
  }
  return out as T;
}

/**
 * Wraps an adapter so that the provider tokens of accounts (`access_token`, `refresh_token`; the `id_token` is no API credential and stays readable for logout) are stored
 * encrypted with the secret and read back in the clear. Tokens stored before are read as they are and sealed at
 * their next write (refresh or sign-in). Keep every secret that sealed a stored token in the list until those
 * tokens are rewritten (a refresh or a sign-in rewrites them with the first secret).
 *
 * @example
 * adapter: encryptProviderTokens(PostgresAdapter(pool), { secret: [process.env.AUTH_SECRET!, process.env.AUTH_SECRET_OLD!] })
 */
export function encryptProviderTokens<A extends Adapter>(adapter: A, options: EncryptProviderTokensOptions): A {
  const secrets = secretsOf(options.secret);
  if (secrets.length === 0 || secrets.some((s) => typeof s !== 'string' || s.length < 32)) {
    throw new TypeError('encryptProviderTokens needs the auth secret (at least 32 characters), or a list of them.');
  }
  const seal = <T extends Record<string, unknown>>(a: Pick<AdapterAccount, 'provider' | 'providerAccountId'>, t: T) => mapTokens(a, t, (f, v) => sealProviderToken(secrets, a, f, v));
  const open = (a: AdapterAccount | null | undefined) => (a ? mapTokens(a, a, (f, v) => openProviderToken(secrets, a, f, v)) : a);
  const openState = <S extends TokenRefreshState>(s: S): S => ({ ...s, account: open(s.account) ?? null });
  const wrapped: Adapter = {};
  const bind = <K extends keyof Adapter>(name: K) => (adapter[name] as (...args: unknown[]) => unknown).bind(adapter);
  if (adapter.linkAccount) {
    const link = bind('linkAccount');
    wrapped.linkAccount = async (account) => open((await link(seal(account, account))) as AdapterAccount | null) ?? undefined;
  }
  if (adapter.getAccount) {
    const get = bind('getAccount');
    wrapped.getAccount = async (id, provider) => open((await get(id, provider)) as AdapterAccount | null) ?? null;
  }
  if (adapter.getUserAccount) {
    const get = bind('getUserAccount');
    wrapped.getUserAccount = async (userId, provider) => open((await get(userId, provider)) as AdapterAccount | null) ?? null;
  }
  if (adapter.readTokenRefresh) {
    const read = bind('readTokenRefresh');
    wrapped.readTokenRefresh = async (key) => openState((await read(key)) as TokenRefreshState);
  }
  if (adapter.claimTokenRefresh) {
    const claim = bind('claimTokenRefresh');
    wrapped.claimTokenRefresh = async (key, holder, until) => openState((await claim(key, holder, until)) as TokenRefreshState & { claimed: boolean });
  }
  if (adapter.finishTokenRefresh) {
    const finish = bind('finishTokenRefresh');
    wrapped.finishTokenRefresh = async (key, holder, outcome) => {
      await finish(key, holder, 'rotated' in outcome ? { ...outcome, rotated: seal(key, outcome.rotated) } : outcome);
    };
  }
  if (adapter.unlinkAccount) {
    const unlink = bind('unlinkAccount');
    wrapped.unlinkAccount = async (key) => open((await unlink(key)) as AdapterAccount | undefined) ?? undefined;
  }
  if (adapter.withTransaction) {
    const tx = bind('withTransaction') as <T>(fn: (tx: Adapter) => Promise<T>) => Promise<T>;
    wrapped.withTransaction = <T>(fn: (inner: Adapter) => Promise<T>) => tx((inner) => fn(encryptProviderTokens(inner, options)));
  }
  // Every other method (and a class-based adapter's prototype methods) is the adapter's own, called on it.
  return new Proxy(adapter, {
    get: (target, name, receiver) => (Object.hasOwn(wrapped, name) ? wrapped[name as keyof Adapter] : Reflect.get(target, name, receiver)),
  });
}
