// The synchronous S256 challenge the OAuth flow sends: RFC 7636's own example, and the same answer as
// oauth4webapi's WebCrypto computation for fresh verifiers.
import * as oauth from 'oauth4webapi';
import { describe, expect, it } from 'vitest';
import { s256CodeChallenge } from '../../../src/flows/oauth/pkce.js';

describe('s256CodeChallenge', () => {
  it('matches RFC 7636 appendix B', () => {
    expect(s256CodeChallenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
  });

  it('agrees with oauth4webapi for fresh verifiers', async () => {
    for (let i = 0; i < 20; i += 1) {
      const verifier = oauth.generateRandomCodeVerifier();
      expect(s256CodeChallenge(verifier)).toBe(await oauth.calculatePKCECodeChallenge(verifier));
    }
  });
});
