// The OPs and the app under test shared by the OAuth end-to-end suites: one OP with three clients (Basic, POST,
// and another relying party), a second OP that knows the same client (the other issuer of a mix-up), and an
// authchart instance with one provider per protocol variant.
import type { TokenSet } from '../../../src/core/types.js';
import { OAuth, OIDC } from '../../../src/providers/oauth.js';
import { testAuth, type TestAuth } from '../../support/auth-app.js';
import { startOidcProvider, type OidcProviderHarness } from '../peers/oidc.js';
import { callbackOf } from './harness.js';

export const SECRET_A = 'client-a-secret-0123456789abcdefghij';
const SECRET_POST = 'client-post-secret-0123456789abcdefg';
const SECRET_B = 'client-b-secret-0123456789abcdefghij';
const confidential = { response_types: ['code'], grant_types: ['authorization_code', 'refresh_token'] };

export const strict = ['pkce', 'state', 'nonce'] as ('pkce' | 'state' | 'nonce')[];

/**
 * What the `own-token` provider's token request does to the tokens it fetched from the OP: nothing, unless a
 * test swaps in a rewrite (a forged or foreign ID token, as a careless token request might pass along).
 */
export const ownTokenRewrite: { apply: (tokens: TokenSet) => TokenSet } = { apply: (tokens) => tokens };

export interface Testbed {
  op: OidcProviderHarness;
  /** A second, independent OP that registers the same client id and redirect URIs. */
  op2: OidcProviderHarness;
  /** A fresh app (its own logger and browser) with every provider; `signIns` collects the signIn events. */
  app(events?: { signIns?: unknown[] }): TestAuth;
  stop(): Promise<void>;
}

/** Starts both OPs; call in `beforeAll`, and `stop()` in `afterAll`. */
export async function startTestbed(): Promise<Testbed> {
  const clientA = {
    ...confidential,
    client_id: 'authchart-test',
    client_secret: SECRET_A,
    token_endpoint_auth_method: 'client_secret_basic',
    redirect_uris: ['oidc', 'other', 'wk', 'userinfo', 'oauth2', 'formpost', 'pkce-only', 'mixup', 'own-token'].map(callbackOf),
  };
  const [op, op2] = await Promise.all([
    startOidcProvider({
      scopes: ['api:read'],
      clients: [
        clientA,
        { ...confidential, client_id: 'authchart-post', client_secret: SECRET_POST, token_endpoint_auth_method: 'client_secret_post', redirect_uris: [callbackOf('post')] },
        // Another relying party at the same OP: its codes and ID tokens have another audience.
        { ...confidential, client_id: 'authchart-b', client_secret: SECRET_B, token_endpoint_auth_method: 'client_secret_basic', redirect_uris: [callbackOf('app-b')] },
      ],
    }),
    startOidcProvider({ clients: [clientA] }),
  ]);
  const a = { clientId: 'authchart-test', clientSecret: SECRET_A };
  const app = (events: { signIns?: unknown[] } = {}): TestAuth =>
    testAuth({
      providers: [
        OIDC({ id: 'oidc', name: 'OP', issuer: op.issuer, ...a, checks: strict }),
        OIDC({ id: 'other', name: 'OP again', issuer: op.issuer, ...a, checks: strict }),
        OIDC({ id: 'wk', name: 'OP by wellKnown', wellKnown: `${op.issuer}/.well-known/openid-configuration`, ...a, checks: strict }),
        OIDC({ id: 'userinfo', name: 'OP user info', issuer: op.issuer, ...a, checks: strict, idToken: false }),
        OAuth({
          id: 'oauth2',
          name: 'Plain OAuth 2',
          authorization: { url: `${op.issuer}/auth`, params: { scope: 'api:read' } },
          token: `${op.issuer}/token`,
          userinfo: op.userinfoEndpoint(),
          ...a,
          checks: ['pkce', 'state'],
        }),
        OIDC({ id: 'formpost', name: 'OP form_post', issuer: op.issuer, ...a, checks: strict, authorization: { params: { response_mode: 'form_post' } } }),
        OIDC({ id: 'pkce-only', name: 'OP, default checks', issuer: op.issuer, ...a }),
        // Exchanges the code itself, as a provider with a non-standard token endpoint must.
        OIDC({
          id: 'own-token',
          name: 'OP, own token request',
          issuer: op.issuer,
          ...a,
          checks: strict,
          token: {
            async request({ params, checks, provider }) {
              const res = await fetch(`${op.issuer}/token`, {
                method: 'POST',
                headers: { authorization: `Basic ${Buffer.from(`${a.clientId}:${a.clientSecret}`).toString('base64')}` },
                body: new URLSearchParams({ grant_type: 'authorization_code', code: String(params.code), redirect_uri: provider.redirectUri, code_verifier: String(checks.code_verifier) }),
              });
              return { tokens: ownTokenRewrite.apply((await res.json()) as TokenSet) };
            },
          },
        }),
        OIDC({ id: 'post', name: 'OP post auth', issuer: op.issuer, clientId: 'authchart-post', clientSecret: SECRET_POST, client: { token_endpoint_auth_method: 'client_secret_post' } }),
        OIDC({ id: 'app-b', name: 'Another client', issuer: op.issuer, clientId: 'authchart-b', clientSecret: SECRET_B, checks: strict }),
        // Says it is `op`, but its endpoints are op2's: whatever op2 issues is for another issuer.
        OAuth({
          id: 'mixup',
          name: 'Mixed-up endpoints',
          issuer: op.issuer,
          authorization: { url: `${op2.issuer}/auth`, params: { scope: 'openid' } },
          token: `${op2.issuer}/token`,
          userinfo: op2.userinfoEndpoint(),
          ...a,
          checks: ['pkce', 'state'],
        }),
      ],
      events: { signIn: (message) => void events.signIns?.push(message) },
    });
  return { op, op2, app, stop: async () => void (await Promise.all([op.stop(), op2.stop()])) };
}
