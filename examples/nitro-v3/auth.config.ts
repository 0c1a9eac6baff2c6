// The app's authchart configuration: one object, shared by the auth route and every route that reads the session.
// AUTH_SECRET and AUTH_URL (or AUTH_TRUST_HOST) come from the environment, as in production. With DATABASE_URL (a
// PostgreSQL database migrated with `npx authchart migrate`), organizations are on: users create and switch
// organizations under /auth/organizations, and /team checks a permission in the active one.
import pg from 'pg';
import type { AuthConfig } from 'authchart';
import { PostgresAdapter } from 'authchart/adapters/postgres';
import { Credentials, OIDC } from 'authchart/providers';

const { AUTH_OIDC_ISSUER, AUTH_OIDC_ID, AUTH_OIDC_SECRET, DATABASE_URL } = process.env;

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
  ...(DATABASE_URL
    ? {
        adapter: PostgresAdapter(new pg.Pool({ connectionString: DATABASE_URL })),
        // Sessions stay JWTs (the credentials user above has no users row); the active organization rides in the token.
        session: { strategy: 'jwt' as const },
        organizations: { roles: { member: ['report:read'], analyst: ['report:read', 'report:publish'] } },
      }
    : {}),
};
