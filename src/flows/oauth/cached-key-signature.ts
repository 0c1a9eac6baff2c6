// An ID token's signature checked synchronously with node:crypto against the key set oauth4webapi already cached for
// the provider: Web Crypto's verify costs several times the CPU of the check itself (argument conversion, a thread
// pool job). This check only ever accepts. Whatever it cannot decide the way oauth4webapi would (no fresh key set,
// not exactly one key, an algorithm outside the usual ones, a signature that does not verify) goes to oauth4webapi's
// own check, which then answers, downloads and reports exactly as it does without this one.
import { constants, createPublicKey, verify, type KeyObject } from 'node:crypto';

/** The key set oauth4webapi keeps in the `jwksCache` option we hand it (see oauth-server.ts). */
export interface CachedKeySet {
  jwks?: { keys?: unknown };
  uat?: number;
}

/** oauth4webapi downloads a key set this old (seconds) again before it trusts it: no decision from a staler one. */
const MAX_AGE_S = 300;

type Family = { kty: 'RSA'; padding: 'pkcs1' | 'pss' } | { kty: 'EC'; crv: string; curve: string };

// The algorithms decided here, with what oauth4webapi requires of the key for each; any other goes its way.
const HASH = { '256': 'sha256', '384': 'sha384', '512': 'sha512' } as const;
const CURVES: Record<string, [crv: string, curve: string]> = { ES256: ['P-256', 'prime256v1'], ES384: ['P-384', 'secp384r1'], ES512: ['P-521', 'secp521r1'] };

function familyOf(alg: string): Family | undefined {
  if (/^RS(256|384|512)$/.test(alg)) return { kty: 'RSA', padding: 'pkcs1' };
  if (/^PS(256|384|512)$/.test(alg)) return { kty: 'RSA', padding: 'pss' };
  const curve = CURVES[alg];
  return curve ? { kty: 'EC', crv: curve[0], curve: curve[1] } : undefined;
}

const SEGMENT = /^[A-Za-z0-9_-]+$/;

/** The one key oauth4webapi would select for this header, or undefined (none, several, or not a public JWK). */
function selectKey(keys: unknown[], alg: string, kid: unknown, family: Family): Record<string, unknown> | undefined {
  let found: Record<string, unknown> | undefined;
  for (const key of keys) {
    if (!key || typeof key !== 'object') return undefined;
    const jwk = key as Record<string, unknown>;
    if (jwk.kty !== family.kty) continue;
    if (kid !== undefined && kid !== jwk.kid) continue;
    if (jwk.alg !== undefined && jwk.alg !== alg) continue;
    if (jwk.use !== undefined && jwk.use !== 'sig') continue;
    const ops = jwk.key_ops;
    if (ops !== undefined && !Array.isArray(ops)) return undefined;
    if (ops && !ops.includes('verify')) continue;
    if (family.kty === 'EC' && jwk.crv !== family.crv) continue;
    if (found) return undefined;
    found = jwk;
  }
  // A published private key is refused by Web Crypto for verifying: leave that answer to oauth4webapi.
  return found && !('d' in found) ? found : undefined;
}

// One public key object per JWK object of a cached set (a new download brings new objects); null: not usable here.
const imported = new WeakMap<object, KeyObject | null>();

function keyObjectOf(jwk: Record<string, unknown>, family: Family): KeyObject | null {
  let key = imported.get(jwk);
  if (key !== undefined) return key;
  try {
    const { ext: _ext, key_ops: _ops, use: _use, alg: _alg, kid: _kid, ...material } = jwk;
    key = createPublicKey({ key: material as never, format: 'jwk' });
    const details = key.asymmetricKeyDetails ?? {};
    const usable = family.kty === 'RSA' ? key.asymmetricKeyType === 'rsa' && (details.modulusLength ?? 0) >= 2048 : key.asymmetricKeyType === 'ec' && details.namedCurve === family.curve;
    if (!usable) key = null;
  } catch {
    key = null;
  }
  imported.set(jwk, key);
  return key;
}

/**
 * True when the compact JWS `token` carries a valid signature by the one key of `cache` that oauth4webapi would
 * select for it, the set being fresh at `nowS` (seconds); false means "not decided here", never "invalid".
 *
 * @example
 * if (!verifiedByCachedKey(tokens.id_token, keys)) await oauth.validateApplicationLevelSignature(as, response, options)
 */
export function verifiedByCachedKey(token: string, cache: CachedKeySet, nowS = Math.floor(Date.now() / 1000)): boolean {
  const keys = cache.jwks?.keys;
  if (!Array.isArray(keys) || typeof cache.uat !== 'number' || !(nowS - cache.uat < MAX_AGE_S)) return false;
  const parts = token.split('.');
  if (parts.length !== 3 || !parts.every((p) => SEGMENT.test(p))) return false;
  try {
    const header = JSON.parse(Buffer.from(parts[0], 'base64url').toString('utf8')) as { alg?: unknown; kid?: unknown; crit?: unknown };
    if (!header || typeof header !== 'object' || typeof header.alg !== 'string' || header.crit !== undefined) return false;
    const family = familyOf(header.alg);
    if (!family) return false;
    const jwk = selectKey(keys, header.alg, header.kid, family);
    const key = jwk && keyObjectOf(jwk, family);
    if (!key) return false;
    const hash = HASH[header.alg.slice(2) as keyof typeof HASH];
    const data = Buffer.from(`${parts[0]}.${parts[1]}`, 'ascii');
    const signature = Buffer.from(parts[2], 'base64url');
    if (family.kty === 'EC') return verify(hash, data, { key, dsaEncoding: 'ieee-p1363' }, signature);
    if (family.padding === 'pss') return verify(hash, data, { key, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: Number(header.alg.slice(2)) / 8 }, signature);
    return verify(hash, data, key, signature);
  } catch {
    return false;
  }
}
