// A real OpenID Provider with refresh-token rotation, and two app instances sharing one PostgreSQL schema, for the
// provider-token tests: sign a user in through the OP, expire the stored access token, count refresh requests.
import pg from 'pg';
import { PostgresAdapter, type PostgresAdapterInstance } from '../../../src/adapters/postgres/index.js';
import { encryptProviderTokens } from '../../../src/flows/tokens/sealed-tokens.js';
import type { AuthConfig } from '../../../src/core/options.js';
import { ORIGIN, TEST_SECRET, testAuth, type TestAuth } from '../../support/auth-app.js';
import { serverSchema } from '../../session/database-harness.js';
import type { CookieJar } from '../../support/cookie-jar.js';
import { countRefreshGrants, offlineOidc, revokeAtOp } from './op-peer.js';
import { DEFAULT_CLIENT_ID, DEFAULT_CLIENT_SECRET, DEFAULT_REDIRECT_URI, startOidcProvider, type OidcProviderHarness } from '../peers/oidc.js';

export const DATABASE = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TokenTestbed {
  op: OidcProviderHarness;
  /** Two app instances (own configuration, own adapter, own pg pool) on one schema. */
  configs: [AuthConfig, AuthConfig];
  /** The two PostgresAdapters, undecorated. */
  rawAdapters: [PostgresAdapterInstance, PostgresAdapterInstance];
  apps: [TestAuth, TestAuth];
  sql<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  /** Refresh-token grants the OP answered (`ok`) and refused (`refused`). */
  grants: { ok: number; refused: number };
  /** Signs a new browser in at the OP as `who` on instance 0; its session cookie header. `opCookies` keeps the OP session. */
  signIn(who: string, opCookies?: CookieJar): Promise<string>;
  /** Sets the stored access token of `who` to have expired `seconds` ago. */
  expire(who: string, seconds?: number): Promise<void>;
  /** Revokes a refresh token at the OP (its revocation endpoint, as the client); the OP's status. */
  revoke(refreshToken: string): Promise<number>;
  /** Has the OP itself send its back-channel logout of this client for `sub`'s OP session `sid`. */
  opLogout(sub: string, sid: string): Promise<void>;
  /** A web Request of the app carrying the cookie. */
  request(cookie: string): Request;
  close(): Promise<void>;
}

export async function tokenTestbed(
  options: {
    opConfig?: Record<string, unknown>;
    features?: Record<string, Record<string, unknown>>;
    sealWith?: string[];
    /** Extra metadata of the app's client at the OP (e.g. `backchannel_logout_uri`). */
    client?: Record<string, unknown>;
    /** Extra options of the app's OIDC provider (e.g. `rpInitiatedLogout: true`). */
    provider?: Record<string, unknown>;
    /** Session options (default `{ strategy: 'database' }`). */
    session?: AuthConfig['session'];
  } = {},
): Promise<TokenTestbed> {
  const op = await startOidcProvider({
    config: { rotateRefreshToken: true, ...options.opConfig },
    features: options.features,
    ...(options.client
      ? {
          clients: [
            {
              client_id: DEFAULT_CLIENT_ID,
              client_secret: DEFAULT_CLIENT_SECRET,
              redirect_uris: [DEFAULT_REDIRECT_URI],
              response_types: ['code'],
              grant_types: ['authorization_code', 'refresh_token'],
              token_endpoint_auth_method: 'client_secret_basic',
              ...options.client,
            },
          ],
        }
      : {}),
  });
  const grants = countRefreshGrants(op);
  const db = await serverSchema(DATABASE);
  const second = new pg.Pool({ connectionString: DATABASE, options: `-c search_path=${db.schema}`, max: 4 });
  const provider = () => offlineOidc(op, options.provider);
  const config = (adapter: AuthConfig['adapter']): AuthConfig => ({ secret: TEST_SECRET, trustHost: true, adapter, session: options.session ?? { strategy: 'database' }, providers: [provider()] });
  const rawAdapters: [PostgresAdapterInstance, PostgresAdapterInstance] = [db.adapter as PostgresAdapterInstance, PostgresAdapter(second)];
  const sealed = (a: PostgresAdapterInstance) => (options.sealWith ? encryptProviderTokens(a, { secret: options.sealWith }) : a);
  const configs: [AuthConfig, AuthConfig] = [config(sealed(rawAdapters[0])), config(sealed(rawAdapters[1]))];
  const apps: [TestAuth, TestAuth] = [testAuth(configs[0]), testAuth(configs[1])];
  return {
    op,
    configs,
    rawAdapters,
    apps,
    sql: db.sql as TokenTestbed['sql'],
    grants,
    async signIn(who, opCookies) {
      const client = apps[0].newClient();
      const csrfToken = await apps[0].csrfToken(client);
      const start = await client.post('/auth/signin/oidc', { csrfToken, callbackUrl: '/after' });
      const done = await client.submit(await op.login(start.location!.href, who, { cookies: opCookies }));
      if (done.location?.pathname !== '/after') throw new Error(`sign-in as ${who} failed: ${done.status} ${done.location?.href}`);
      return client.cookies.header(`${ORIGIN}/`);
    },
    async expire(who, seconds = 10) {
      await db.sql(`UPDATE accounts SET expires_at = extract(epoch from now())::bigint - $2 WHERE provider = 'oidc' AND provider_account_id = $1`, [who, seconds]);
    },
    revoke: (refreshToken) => revokeAtOp(op, refreshToken),
    async opLogout(sub, sid) {
      type OpClient = { backchannelLogout(sub: string, sid: string): Promise<void> };
      const client = await (op.provider as unknown as { Client: { find(id: string): Promise<OpClient | undefined> } }).Client.find(op.clientId);
      await client!.backchannelLogout(sub, sid);
    },
    request: (cookie) => new Request(`${ORIGIN}/api/provider-data`, { headers: { cookie } }),
    async close() {
      await second.end();
      await db.close();
      await op.stop();
    },
  };
}
