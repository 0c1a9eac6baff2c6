// How oauth4webapi's failures are sorted: by the error's code and the evidence in its `cause`, never by its message.
// Each error here is the real one oauth4webapi throws for that input (its validation is pure, so no peer is needed);
// the end-to-end counterparts with a real OpenID Provider live in test/e2e/oauth-attacks.test.ts.
import * as oauth from 'oauth4webapi';
import { describe, expect, it } from 'vitest';
import { InvalidCheck, OAuthCallbackError } from '../../../src/core/errors.js';
import { classifyOAuthError, failedResponseCheck } from '../../../src/flows/oauth/steps.js';

const ISSUER = 'https://op.test';
const as: oauth.AuthorizationServer = { issuer: ISSUER, authorization_endpoint: `${ISSUER}/auth`, token_endpoint: `${ISSUER}/token` };
const client: oauth.Client = { client_id: 'app' };

/** The error a call throws (fails the test when it does not throw). */
async function thrown(fn: () => unknown): Promise<unknown> {
  try {
    await fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
/** A token response whose ID token carries `claims` (the signature is not what these checks look at). */
function tokenResponse(claims: Record<string, unknown>): Response {
  const idToken = `${b64({ alg: 'RS256', typ: 'JWT' })}.${b64(claims)}.${Buffer.from('not-checked').toString('base64url')}`;
  return new Response(JSON.stringify({ access_token: 'at', token_type: 'bearer', id_token: idToken }), { headers: { 'content-type': 'application/json' } });
}
const now = () => Math.floor(Date.now() / 1000);
const goodClaims = () => ({ iss: ISSUER, aud: 'app', sub: 'u1', iat: now(), exp: now() + 600, nonce: 'the-nonce' });
const idTokenError = (claims: Record<string, unknown>) =>
  thrown(() => oauth.processAuthorizationCodeResponse(as, client, tokenResponse(claims), { expectedNonce: 'the-nonce', requireIdToken: true }));

describe("oauth4webapi's codes, as this code relies on them", () => {
  it('are the strings the classification compares', () => {
    expect(oauth.JWT_CLAIM_COMPARISON).toBe('OAUTH_JWT_CLAIM_COMPARISON_FAILED');
    expect(oauth.JSON_ATTRIBUTE_COMPARISON).toBe('OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED');
    expect(oauth.INVALID_RESPONSE).toBe('OAUTH_INVALID_RESPONSE');
    expect(oauth.JWT_TIMESTAMP_CHECK).toBe('OAUTH_JWT_TIMESTAMP_CHECK_FAILED');
  });
});

describe('the authorization response: state and iss', () => {
  const validate = (params: Record<string, string>, state: string | typeof oauth.expectNoState, server: oauth.AuthorizationServer = as) =>
    thrown(() => oauth.validateAuthResponse(server, client, new URLSearchParams(params), state));

  it('a wrong, a missing and an unexpected state are the state check', async () => {
    expect(failedResponseCheck(await validate({ code: 'c', state: 'other', iss: ISSUER }, 'mine'), ISSUER)).toBe('state');
    expect(failedResponseCheck(await validate({ code: 'c', iss: ISSUER }, 'mine'), ISSUER)).toBe('state');
    expect(failedResponseCheck(await validate({ code: 'c', state: 'injected', iss: ISSUER }, oauth.expectNoState), ISSUER)).toBe('state');
  });

  it('a wrong iss, and a missing one where the server promises it, are the issuer check', async () => {
    expect(failedResponseCheck(await validate({ code: 'c', state: 'mine', iss: 'https://evil.test' }, 'mine'), ISSUER)).toBe('iss');
    const promising = { ...as, authorization_response_iss_parameter_supported: true };
    expect(failedResponseCheck(await validate({ code: 'c', state: 'mine' }, 'mine', promising), ISSUER)).toBe('iss');
  });

  it('a wrong iss is told apart from a wrong state when both are wrong (iss is checked first)', async () => {
    expect(failedResponseCheck(await validate({ code: 'c', state: 'other', iss: 'https://evil.test' }, 'mine'), ISSUER)).toBe('iss');
  });

  it('neither for a JARM response, a provider error or something that is not oauth4webapi’s', async () => {
    expect(failedResponseCheck(await validate({ response: 'x.y.z' }, 'mine'), ISSUER)).toBeUndefined();
    expect(failedResponseCheck(await validate({ error: 'access_denied', state: 'mine' }, 'mine'), ISSUER)).toBeUndefined();
    expect(failedResponseCheck(new Error('unexpected "state" response parameter value'), ISSUER)).toBeUndefined();
  });
});

describe('classifyOAuthError', () => {
  it('a wrong nonce, iss, aud or azp in the ID token is an InvalidCheck naming the claim', async () => {
    for (const [claim, value] of [['nonce', 'replayed'], ['iss', 'https://evil.test'], ['aud', 'someone-else']] as const) {
      const err = await idTokenError({ ...goodClaims(), [claim]: value });
      expect((err as oauth.OperationProcessingError).code).toBe(oauth.JWT_CLAIM_COMPARISON);
      const mapped = classifyOAuthError(err, 'token', { nonce: 'the-nonce' });
      expect(mapped).toBeInstanceOf(InvalidCheck);
      expect(mapped.cause).toMatchObject({ claim, actual: value });
    }
  });

  it('an ID token without the nonce this sign-in sent, or without a string iss, is an InvalidCheck', async () => {
    const { nonce: _n, ...noNonce } = goodClaims();
    const missingNonce = await idTokenError(noNonce);
    expect((missingNonce as oauth.OperationProcessingError).code).toBe(oauth.INVALID_RESPONSE);
    expect(classifyOAuthError(missingNonce, 'token', { nonce: 'the-nonce' }).cause).toMatchObject({ claim: 'nonce', expected: 'the-nonce', actual: null });
    expect(classifyOAuthError(missingNonce, 'token', { nonce: 'the-nonce' })).toBeInstanceOf(InvalidCheck);
    const numericIss = await idTokenError({ ...goodClaims(), iss: 42 });
    expect(classifyOAuthError(numericIss, 'token', { nonce: 'the-nonce' })).toMatchObject({ type: 'InvalidCheck', cause: { claim: 'iss', actual: 42 } });
  });

  it('a missing sub, or an expired ID token, is an OAuthCallbackError carrying the code', async () => {
    const { sub: _s, ...noSub } = goodClaims();
    const missingSub = classifyOAuthError(await idTokenError(noSub), 'token', { nonce: 'the-nonce' });
    expect(missingSub).toBeInstanceOf(OAuthCallbackError);
    expect(missingSub.cause).toMatchObject({ code: oauth.INVALID_RESPONSE });
    const expired = classifyOAuthError(await idTokenError({ ...goodClaims(), iat: now() - 7200, exp: now() - 3600 }), 'token', { nonce: 'the-nonce' });
    expect(expired).toBeInstanceOf(OAuthCallbackError);
    expect(expired.cause).toMatchObject({ code: oauth.JWT_TIMESTAMP_CHECK });
  });

  it("a discovery document naming another issuer is an InvalidCheck on the document's issuer", async () => {
    const doc = new Response(JSON.stringify({ ...as, issuer: 'https://evil.test' }), { headers: { 'content-type': 'application/json' } });
    const err = await thrown(() => oauth.processDiscoveryResponse(new URL(ISSUER), doc));
    expect((err as oauth.OperationProcessingError).code).toBe(oauth.JSON_ATTRIBUTE_COMPARISON);
    expect(classifyOAuthError(err, 'discovery')).toMatchObject({ type: 'InvalidCheck', cause: { claim: 'issuer', actual: 'https://evil.test' } });
  });

  it('goes by the code, not the words: a message about "state", "nonce" or "issuer" under another code is no check', () => {
    for (const message of ['unexpected "state" response parameter value', 'unexpected ID Token "nonce" claim value', 'bad "iss" (issuer)']) {
      const err = new oauth.OperationProcessingError(message, { code: oauth.RESPONSE_IS_NOT_JSON, cause: {} });
      expect(classifyOAuthError(err, 'token', { nonce: 'n' })).toBeInstanceOf(OAuthCallbackError);
    }
    const silent = new oauth.OperationProcessingError('something', { code: oauth.JWT_CLAIM_COMPARISON, cause: { claim: 'nonce', expected: 'n', claims: { nonce: 'm' } } });
    expect(classifyOAuthError(silent, 'token')).toMatchObject({ type: 'InvalidCheck', cause: { claim: 'nonce', actual: 'm' } });
  });
});
