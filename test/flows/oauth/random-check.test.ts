// The sign-in's random check values (PKCE verifier, state, nonce): the same shape as oauth4webapi's generators,
// 32 fresh random bytes each, and a verifier its PKCE code accepts.
import * as oauth from 'oauth4webapi';
import { describe, expect, it } from 'vitest';
import { s256CodeChallenge } from '../../../src/flows/oauth/pkce.js';
import { randomCheckValue } from '../../../src/flows/oauth/random-check.js';

const SHAPE = /^[A-Za-z0-9_-]{43}$/;

describe('randomCheckValue', () => {
  it('has the shape of oauth4webapi’s generated values and carries 32 bytes', () => {
    expect(oauth.generateRandomState()).toMatch(SHAPE);
    for (let i = 0; i < 50; i += 1) {
      const value = randomCheckValue();
      expect(value).toMatch(SHAPE);
      expect(Buffer.from(value, 'base64url')).toHaveLength(32);
      expect(Buffer.from(value, 'base64url').toString('base64url')).toBe(value);
    }
  });

  it('is fresh every time', () => {
    const seen = new Set(Array.from({ length: 1000 }, randomCheckValue));
    expect(seen.size).toBe(1000);
  });

  it('is a PKCE verifier oauth4webapi computes the same challenge for', async () => {
    const verifier = randomCheckValue();
    expect(s256CodeChallenge(verifier)).toBe(await oauth.calculatePKCECodeChallenge(verifier));
  });
});
