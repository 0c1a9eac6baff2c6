// The app's authchart configuration: one object, shared by the auth route and every route that reads the session.
// AUTH_SECRET and AUTH_URL (or AUTH_TRUST_HOST) come from the environment, as in production.
import type { AuthConfig } from 'authchart';
import { Credentials, OIDC } from 'authchart/providers';

const { AUTH_OIDC_ISSUER, AUTH_OIDC_ID, AUTH_OIDC_SECRET } = process.env;

export const authConfig: AuthConfig = {
  providers: [
    Credentials({
      name: 'Account',
      credentials: { email: { label: 'Email', type: 'email' }, password: { label: 'Password', type: 'password' } },
      // Look the user up in your own store; this example knows one.
      authorize: async ({ email, password }) =>
        email === 'ada@example.test' && password === 'analytical-engine' ? { id: 'ada', name: 'Ada Lovelace', email } : null,
    }),
    // Any OpenID Provider, when its issuer and client are configured.
    ...(AUTH_OIDC_ISSUER ? [OIDC({ id: 'oidc', name: 'Company SSO', issuer: AUTH_OIDC_ISSUER, clientId: AUTH_OIDC_ID, clientSecret: AUTH_OIDC_SECRET })] : []),
  ],
};
