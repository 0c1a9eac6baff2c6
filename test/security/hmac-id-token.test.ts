// HMAC-signed ID tokens (LINE's web login), where the flow checks signatures itself (a provider on loopback HTTP):
// the client secret is the key, so a token keyed otherwise, a payload edited after signing, or an HS256 token sent
// to a client that expects RS256 (algorithm confusion with a public value as key) must all be refused.
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { OAuthCallbackError } from '../../src/core/errors.js';
import { hmacAlgorithmOf, verifyHmacIdToken } from '../../src/flows/oauth/hmac-id-token.js';
import { Google, Line } from '../../src/providers/catalogue/index.js';
import { describeExchangeCases } from '../providers/catalogue-exchange.js';

const SECRET = 'line-channel-secret';
const sign = (claims: Record<string, unknown>, secret: string, alg = 'HS256') =>
  new SignJWT(claims).setProtectedHeader({ alg, typ: 'JWT' }).sign(new TextEncoder().encode(secret));

describe('verifyHmacIdToken', () => {
  it('accepts a token keyed with the client secret, for each HMAC size', async () => {
    for (const alg of ['HS256', 'HS384', 'HS512']) {
      const jws = await sign({ sub: 'U1' }, SECRET, alg);
      expect(hmacAlgorithmOf(jws)).toBe(alg);
      await expect(verifyHmacIdToken(jws, SECRET)).resolves.toBeUndefined();
    }
  });

  it('refuses a token keyed with another secret', async () => {
    await expect(verifyHmacIdToken(await sign({ sub: 'U1' }, 'guessed'), SECRET)).rejects.toThrow(OAuthCallbackError);
  });

  it('refuses a payload swapped under a valid signature', async () => {
    const [header, , signature] = (await sign({ sub: 'U1' }, SECRET)).split('.');
    const forged = Buffer.from(JSON.stringify({ sub: 'U-admin' })).toString('base64url');
    await expect(verifyHmacIdToken(`${header}.${forged}.${signature}`, SECRET)).rejects.toThrow(/does not verify/);
  });

  it('refuses to verify without a client secret, and leaves non-HMAC tokens alone', async () => {
    await expect(verifyHmacIdToken(await sign({ sub: 'U1' }, SECRET), undefined)).rejects.toThrow(/needs the client secret/);
    const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from('{"sub":"U1"}').toString('base64url')}.`;
    expect(hmacAlgorithmOf(none)).toBeUndefined();
    expect(hmacAlgorithmOf('not a jwt')).toBeUndefined();
  });
});

describeExchangeCases('HMAC-signed ID tokens in a real exchange', {
  // The client secret is not public, but a client configured for RS256 must never take an HS256 token at all.
  'google#hs256-confusion': {
    factory: Google,
    alg: 'HS256',
    authorize: { url: 'https://accounts.google.com/o/oauth2/v2/auth', scopes: ['openid'] },
    token: { url: 'https://oauth2.googleapis.com/token' },
    discovery: { id_token_signing_alg_values_supported: ['RS256'] },
    idToken: { sub: '110169484474386276334', email: 'victim@example.com' },
    error: 'OAuthCallbackError',
    errorMessage: /"alg"/,
  },
  // LINE with a channel secret the attacker guessed wrong.
  'line#payload-signed-by-attacker': {
    factory: Line,
    options: { clientId: '1234567890', clientSecret: SECRET },
    authorize: { url: 'https://access.line.me/oauth2/v2.1/authorize', scopes: ['openid'] },
    token: { url: 'https://api.line.me/oauth2/v2.1/token' },
    idToken: { sub: 'U-admin', name: 'Admin' },
    idTokenSecret: 'attacker-secret',
    error: 'OAuthCallbackError',
    errorMessage: /does not verify/,
  },
});
