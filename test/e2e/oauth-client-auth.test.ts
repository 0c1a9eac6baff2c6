// OAuth client authentication by JWT assertion (RFC 7523, OIDC Core §9) end to end: a real OP (oidc-provider on
// 127.0.0.1) that requires client_secret_jwt of one client and private_key_jwt of others, and authchart signing in
// through each. A wrong secret or key is refused by the OP, never a session.
import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OIDC } from '../../src/providers/oauth.js';
import { testAuth, type TestAuth } from '../support/auth-app.js';
import { startOidcProvider, type OidcProviderHarness } from './peers/oidc.js';
import { callbackOf, expectFailure, setsSession, signInThrough } from './oauth/harness.js';

const JWT_SECRET = 'client-jwt-secret-0123456789abcdefghijklmnop';
const confidential = { response_types: ['code'], grant_types: ['authorization_code'] };

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const stranger = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const publicJwk = (key: typeof rsa.publicKey, kid: string) => ({ ...key.export({ format: 'jwk' }), kid, use: 'sig' });
const privateJwk = (key: typeof rsa.privateKey, kid: string) => ({ ...(key.export({ format: 'jwk' }) as JsonWebKey), kid });

let op: OidcProviderHarness;

beforeAll(async () => {
  op = await startOidcProvider({
    clients: [
      { ...confidential, client_id: 'jwt-secret', client_secret: JWT_SECRET, token_endpoint_auth_method: 'client_secret_jwt', redirect_uris: [callbackOf('secret-jwt')] },
      { ...confidential, client_id: 'jwt-rsa', token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [publicJwk(rsa.publicKey, 'rsa-1')] }, redirect_uris: [callbackOf('rsa-jwt'), callbackOf('rsa-pem')] },
      { ...confidential, client_id: 'jwt-ec', token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [publicJwk(ec.publicKey, 'ec-1')] }, redirect_uris: [callbackOf('ec-jwt'), callbackOf('ec-wrong')] },
    ],
  });
});
afterAll(async () => {
  await op?.stop();
});

function app(): TestAuth {
  return testAuth({
    providers: [
      OIDC({ id: 'secret-jwt', name: 'HS256 assertion', issuer: op.issuer, clientId: 'jwt-secret', clientSecret: JWT_SECRET, client: { token_endpoint_auth_method: 'client_secret_jwt' } }),
      OIDC({ id: 'rsa-jwt', name: 'RS256 assertion (JWK)', issuer: op.issuer, clientId: 'jwt-rsa', client: { token_endpoint_auth_method: 'private_key_jwt' }, token: { clientPrivateKey: privateJwk(rsa.privateKey, 'rsa-1') } }),
      OIDC({
        id: 'rsa-pem',
        name: 'RS256 assertion (PEM)',
        issuer: op.issuer,
        clientId: 'jwt-rsa',
        client: { token_endpoint_auth_method: 'private_key_jwt' },
        token: { clientPrivateKey: rsa.privateKey.export({ format: 'pem', type: 'pkcs8' }) as string },
      }),
      OIDC({ id: 'ec-jwt', name: 'ES256 assertion', issuer: op.issuer, clientId: 'jwt-ec', client: { token_endpoint_auth_method: 'private_key_jwt' }, token: { clientPrivateKey: privateJwk(ec.privateKey, 'ec-1') } }),
      // Signs with a key the OP never registered for this client.
      OIDC({ id: 'ec-wrong', name: 'Unregistered key', issuer: op.issuer, clientId: 'jwt-ec', client: { token_endpoint_auth_method: 'private_key_jwt' }, token: { clientPrivateKey: privateJwk(stranger.privateKey, 'ec-1') } }),
    ],
  });
}

async function sessionEmail(t: TestAuth): Promise<string | undefined> {
  const body = (await (await t.client.get('/auth/session')).json()) as { user?: { email?: string } } | null;
  return body?.user?.email;
}

describe('client_secret_jwt', () => {
  it('signs in at an OP that requires an HS256 client assertion', async () => {
    const t = app();
    const { callback } = await signInThrough(t, op, 'secret-jwt', 'alice');
    expect(t.logger.errors.map((e) => e.message)).toEqual([]);
    expect(setsSession(callback)).toBe(true);
    expect(await sessionEmail(t)).toBe('alice@example.test');
  });

  it('is refused by the OP with the wrong secret', async () => {
    const t = testAuth({
      providers: [OIDC({ id: 'secret-jwt', name: 'x', issuer: op.issuer, clientId: 'jwt-secret', clientSecret: `${JWT_SECRET}-not`, client: { token_endpoint_auth_method: 'client_secret_jwt' } })],
    });
    const { callback } = await signInThrough(t, op, 'secret-jwt', 'alice');
    expectFailure(t, callback, 'OAuthCallbackError');
    expect(t.logger.errors.at(-1)?.message).toMatch(/invalid_client/);
  });
});

describe('private_key_jwt', () => {
  it('signs in with an RSA key given as a private JWK', async () => {
    const t = app();
    const { callback } = await signInThrough(t, op, 'rsa-jwt', 'bob');
    expect(t.logger.errors.map((e) => e.message)).toEqual([]);
    expect(setsSession(callback)).toBe(true);
    expect(await sessionEmail(t)).toBe('bob@example.test');
  });

  it('signs in with the same RSA key given as a PKCS#8 PEM', async () => {
    const t = app();
    const { callback } = await signInThrough(t, op, 'rsa-pem', 'alice');
    expect(t.logger.errors.map((e) => e.message)).toEqual([]);
    expect(setsSession(callback)).toBe(true);
  });

  it('signs in with an EC P-256 key (ES256)', async () => {
    const t = app();
    const { callback } = await signInThrough(t, op, 'ec-jwt', 'alice');
    expect(t.logger.errors.map((e) => e.message)).toEqual([]);
    expect(setsSession(callback)).toBe(true);
  });

  it('is refused by the OP when signed with a key it does not know for the client', async () => {
    const t = app();
    const { callback } = await signInThrough(t, op, 'ec-wrong', 'alice');
    expectFailure(t, callback, 'OAuthCallbackError');
    expect(t.logger.errors.at(-1)?.message).toMatch(/invalid_client/);
  });

  it('without token.clientPrivateKey fails as the sign-in starts, with a typed error naming the option', async () => {
    const t = testAuth({ providers: [OIDC({ id: 'rsa-jwt', name: 'x', issuer: op.issuer, clientId: 'jwt-rsa', client: { token_endpoint_auth_method: 'private_key_jwt' } })] });
    const csrfToken = await t.csrfToken();
    const res = await t.client.post('/auth/signin/rsa-jwt', { csrfToken, callbackUrl: '/' });
    expect(res.status).toBe(302);
    expect(res.location?.searchParams.get('error')).toBe('Configuration');
    expect(t.logger.errors.at(-1)?.message).toMatch(/token\.clientPrivateKey/);
  });
});
