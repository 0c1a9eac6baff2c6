// The synchronous ID token signature check against the cached key set, differential: for every token and key set
// below it accepts only what oauth4webapi's own check (validateApplicationLevelSignature, the path it stands in
// front of) accepts, and it does accept the usual tokens, so the fast path is really taken.
import { constants, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import { describe, expect, it } from 'vitest';
import { verifiedByCachedKey, type CachedKeySet } from '../../../src/flows/oauth/cached-key-signature.js';

const ISSUER = 'https://op.test';
const now = () => Math.floor(Date.now() / 1000);
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

type Pair = { privateKey: KeyObject; publicKey: KeyObject };
const rsa2048 = generateKeyPairSync('rsa', { modulusLength: 2048 }) as Pair;
const rsaOther = generateKeyPairSync('rsa', { modulusLength: 2048 }) as Pair;
const rsa1024 = generateKeyPairSync('rsa', { modulusLength: 1024 }) as Pair;
const p256 = generateKeyPairSync('ec', { namedCurve: 'P-256' }) as Pair;
const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' }) as Pair;
const ed = generateKeyPairSync('ed25519') as Pair;

const jwkOf = (pair: Pair, extra: Record<string, unknown> = {}) => ({ ...(pair.publicKey.export({ format: 'jwk' }) as Record<string, unknown>), ...extra });

/** A compact JWS over fixed claims, signed by `pair` as `alg` says (or with a signature of the caller's). */
function token(alg: string, pair: Pair, header: Record<string, unknown> = {}, options: { saltLength?: number; signature?: (s: string) => string } = {}): string {
  const claims = { iss: ISSUER, aud: 'app', sub: 'u1', iat: now(), exp: now() + 600, nonce: 'n' };
  const input = `${b64({ alg, ...header })}.${b64(claims)}`;
  const hash = alg === 'EdDSA' ? null : `sha${alg.slice(2)}`;
  const key =
    alg.startsWith('ES') ? { key: pair.privateKey, dsaEncoding: 'ieee-p1363' as const }
    : alg.startsWith('PS') ? { key: pair.privateKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: options.saltLength ?? Number(alg.slice(2)) / 8 }
    : pair.privateKey;
  const signature = sign(hash, Buffer.from(input), key).toString('base64url');
  return `${input}.${options.signature ? options.signature(signature) : signature}`;
}

/** What oauth4webapi's own check says of `idToken` with this key set (cached, so no download is attempted). */
async function oauth4webapiAccepts(idToken: string, keys: unknown[], uat = now()): Promise<boolean> {
  const alg = JSON.parse(Buffer.from(idToken.split('.')[0], 'base64url').toString()).alg;
  // A fresh server object per check: oauth4webapi keeps key sets by its identity.
  const as: oauth.AuthorizationServer = { issuer: ISSUER, token_endpoint: `${ISSUER}/token`, jwks_uri: 'https://op.invalid/jwks' };
  const client: oauth.Client = { client_id: 'app', id_token_signed_response_alg: alg };
  const response = new Response(JSON.stringify({ access_token: 'at', token_type: 'bearer', id_token: idToken }), { headers: { 'content-type': 'application/json' } });
  try {
    await oauth.processAuthorizationCodeResponse(as, client, response, { expectedNonce: 'n', requireIdToken: true });
  } catch {
    return false; // not even a token oauth4webapi processes: the signature check never runs on it
  }
  const fetchRefused = (() => Promise.reject(new Error('no download in this test'))) as typeof fetch;
  try {
    await oauth.validateApplicationLevelSignature(as, response, { [oauth.jwksCache]: { jwks: { keys }, uat } as oauth.JWKSCacheInput, [oauth.customFetch]: fetchRefused });
    return true;
  } catch {
    return false;
  }
}

const set = (keys: unknown[], uat = now()): CachedKeySet => ({ jwks: { keys }, uat });
const rsaJwk = jwkOf(rsa2048, { kid: 'r1', use: 'sig', alg: 'RS256' });

// [what, token, key set, accepted here (else left to oauth4webapi), accepted by oauth4webapi]
const cases: Array<[string, () => string, unknown[], boolean, boolean]> = [
  ['RS256 by the one key', () => token('RS256', rsa2048, { kid: 'r1' }), [rsaJwk], true, true],
  ['RS256 without kid, one RSA key', () => token('RS256', rsa2048), [jwkOf(rsa2048)], true, true],
  ['RS384 and RS512', () => token('RS512', rsa2048), [jwkOf(rsa2048)], true, true],
  ['PS256 with the digest-length salt', () => token('PS256', rsa2048), [jwkOf(rsa2048)], true, true],
  ['ES256 on P-256', () => token('ES256', p256, { kid: 'e1' }), [jwkOf(p256, { kid: 'e1' }), rsaJwk], true, true],
  ['ES384 on P-384', () => token('ES384', p384), [jwkOf(p384)], true, true],
  ['RS256 among keys of other kinds and ids', () => token('RS256', rsa2048, { kid: 'r1' }), [jwkOf(rsaOther, { kid: 'r2' }), jwkOf(p256), rsaJwk], true, true],
  ['a signature by another key', () => token('RS256', rsaOther, { kid: 'r1' }), [rsaJwk], false, false],
  ['a payload rewritten after signing', () => { const [h, , s] = token('RS256', rsa2048, { kid: 'r1' }).split('.'); return `${h}.${b64({ iss: ISSUER, aud: 'app', sub: 'mallory', iat: now(), exp: now() + 600, nonce: 'n' })}.${s}`; }, [rsaJwk], false, false],
  ['a signature with one byte changed', () => token('RS256', rsa2048, {}, { signature: (s) => `${s.slice(0, 10)}${s[10] === 'A' ? 'B' : 'A'}${s.slice(11)}` }), [jwkOf(rsa2048)], false, false],
  ['a signature with junk characters added', () => token('RS256', rsa2048, {}, { signature: (s) => `${s}!!` }), [jwkOf(rsa2048)], false, false],
  ['a kid the set lacks (a rotated key)', () => token('RS256', rsa2048, { kid: 'new' }), [rsaJwk], false, false],
  ['two keys that fit and no kid', () => token('RS256', rsa2048), [jwkOf(rsa2048), jwkOf(rsaOther)], false, false],
  ['a key for another alg', () => token('RS256', rsa2048), [jwkOf(rsa2048, { alg: 'PS256' })], false, false],
  ['a key for encryption', () => token('RS256', rsa2048), [jwkOf(rsa2048, { use: 'enc' })], false, false],
  ['a key whose key_ops exclude verify', () => token('RS256', rsa2048), [jwkOf(rsa2048, { key_ops: ['encrypt'] })], false, false],
  ['key_ops that are not a list', () => token('RS256', rsa2048), [jwkOf(rsa2048, { key_ops: 'sign' })], false, false],
  ['a 1024-bit RSA key', () => token('RS256', rsa1024), [jwkOf(rsa1024)], false, false],
  ['PS256 with another salt length', () => token('PS256', rsa2048, {}, { saltLength: 20 }), [jwkOf(rsa2048)], false, false],
  ['ES256 by a P-384 key', () => token('ES256', p384), [jwkOf(p384)], false, false],
  ['EdDSA (left to oauth4webapi)', () => token('EdDSA', ed), [jwkOf(ed)], false, true],
  ['a published private key', () => token('RS256', rsa2048), [rsa2048.privateKey.export({ format: 'jwk' })], false, false],
  ['a critical header', () => token('RS256', rsa2048, { crit: ['exp'], exp: 1 }), [jwkOf(rsa2048)], false, false],
];

describe('the ID token signature checked against the cached key set', () => {
  it.each(cases)('%s: accepted only where oauth4webapi accepts', async (_what, make, keys, decided, theirs) => {
    const idToken = make();
    const fast = verifiedByCachedKey(idToken, set(keys));
    expect(fast).toBe(decided);
    expect(await oauth4webapiAccepts(idToken, keys)).toBe(theirs);
    // The one thing that must never happen: accepted here, refused there.
    expect(!fast || theirs).toBe(true);
  });

  it('decides nothing from a key set oauth4webapi would download again (300 s old), or from no set at all', () => {
    const idToken = token('RS256', rsa2048, { kid: 'r1' });
    expect(verifiedByCachedKey(idToken, set([rsaJwk], now() - 299))).toBe(true);
    expect(verifiedByCachedKey(idToken, set([rsaJwk], now() - 300))).toBe(false);
    expect(verifiedByCachedKey(idToken, {})).toBe(false);
    expect(verifiedByCachedKey(idToken, { jwks: { keys: 'nope' }, uat: now() })).toBe(false);
  });

  it('decides nothing for malformed tokens', () => {
    for (const bad of ['', 'a.b', 'a.b.c.d', `${b64({ alg: 'RS256' })}..sig`, `not-json.${b64({})}.c2ln`, `${b64('RS256')}.${b64({})}.c2ln`]) {
      expect(verifiedByCachedKey(bad, set([rsaJwk]))).toBe(false);
    }
  });
});
