// A real OpenID Provider with refresh-token rotation, and app configurations that keep the provider tokens in the
// sealed JWT session cookie (`session.providerTokens: 'in-session-cookie'`): no adapter, no database. Signs users in
// through the OP, reads and ages the cookie's tokens, counts refresh requests.
import { parseSetCookie } from 'cookie';
import type { AuthConfig } from '../../../src/core/options.js';
import { decodeSync, encodeSync } from '../../../src/session/jwt.js';
import type { JWT } from '../../../src/core/types.js';
import { ORIGIN, TEST_SECRET, testAuth, type TestAuth } from '../../support/auth-app.js';
import type { TestClient } from '../../support/client.js';
import { countRefreshGrants, offlineOidc, revokeAtOp } from './op-peer.js';
import { startOidcProvider, type OidcProviderHarness } from '../peers/oidc.js';

export const SESSION_COOKIE = 'authchart.session-token';

export interface CookieTokenTestbed {
  op: OidcProviderHarness;
  /** Refresh-token grants the OP answered (`ok`) and refused (`refused`). */
  grants: { ok: number; refused: number };
  /** A configuration (one app instance) with tokens in the cookie; `flowStore` as given (default: its own memory). */
  config(extra?: Partial<AuthConfig>): AuthConfig;
  /** Signs a new browser in at the OP as `who` through `config`'s instance; its cookie header. */
  signIn(config: AuthConfig, who: string): Promise<string>;
  /** Signs a new browser in, as `signIn`; the browser itself, to go on using the app. */
  browser(config: AuthConfig, who: string): Promise<{ app: TestAuth; client: TestClient; cookie(): string }>;
  /** The session token's claims (as the server sees them) of a cookie header. */
  claims(cookie: string): JWT & { provider_tokens?: Record<string, unknown> };
  /** The cookie header with the session token's access token expired `seconds` ago (re-sealed with the secret). */
  expire(cookie: string, seconds?: number): string;
  /** The cookie header a response's Set-Cookie lines make of `cookie` (the session token replaced). */
  after(cookie: string, setCookie: readonly string[]): string;
  /** Revokes a refresh token at the OP; the OP's status. */
  revoke(refreshToken: string): Promise<number>;
  /** Whether the OP accepts an access token (its userinfo endpoint). */
  active(accessToken: string): Promise<boolean>;
  request(cookie: string): Request;
  close(): Promise<void>;
}

const valueOf = (cookie: string) => cookie.split(/;\s*/).find((c) => c.startsWith(`${SESSION_COOKIE}=`))?.slice(SESSION_COOKIE.length + 1) ?? '';

export async function cookieTokenTestbed(): Promise<CookieTokenTestbed> {
  const op = await startOidcProvider({ config: { rotateRefreshToken: true }, features: { revocation: { enabled: true } } });
  const grants = countRefreshGrants(op);
  const provider = () => offlineOidc(op);
  const claims = (cookie: string) => decodeSync({ token: valueOf(cookie), secret: TEST_SECRET, salt: SESSION_COOKIE }) as ReturnType<CookieTokenTestbed['claims']>;
  const withToken = (cookie: string, value: string) =>
    cookie
      .split(/;\s*/)
      .map((c) => (c.startsWith(`${SESSION_COOKIE}=`) ? `${SESSION_COOKIE}=${value}` : c))
      .join('; ');
  const testbed: CookieTokenTestbed = {
    op,
    grants,
    config: (extra = {}) => ({ secret: TEST_SECRET, trustHost: true, session: { strategy: 'jwt', providerTokens: 'in-session-cookie' }, providers: [provider()], ...extra }),
    async signIn(config, who) {
      return (await testbed.browser(config, who)).cookie();
    },
    async browser(config, who) {
      const app = testAuth(config);
      const client = app.newClient();
      const csrfToken = await app.csrfToken(client);
      const start = await client.post('/auth/signin/oidc', { csrfToken, callbackUrl: '/after' });
      const done = await client.submit(await op.login(start.location!.href, who));
      if (done.location?.pathname !== '/after') throw new Error(`sign-in as ${who} failed: ${done.status} ${done.location?.href}`);
      return { app, client, cookie: () => client.cookies.header(`${ORIGIN}/`) };
    },
    claims,
    expire(cookie, seconds = 10) {
      const { iat: _i, exp: _e, jti: _j, ...token } = claims(cookie);
      const tokens = { ...token.provider_tokens, expires_at: Math.floor(Date.now() / 1000) - seconds };
      return withToken(cookie, encodeSync({ token: { ...token, provider_tokens: tokens }, secret: TEST_SECRET, salt: SESSION_COOKIE }));
    },
    after(cookie, setCookie) {
      const line = setCookie.map((l) => parseSetCookie(l)).find((c) => c.name === SESSION_COOKIE);
      if (!line) throw new Error('no session cookie was set');
      return withToken(cookie, line.value ?? "");
    },
    revoke: (refreshToken) => revokeAtOp(op, refreshToken),
    async active(accessToken) {
      return (await fetch(`${op.issuer}/me`, { headers: { authorization: `Bearer ${accessToken}` } })).status === 200;
    },
    request: (cookie) => new Request(`${ORIGIN}/api/provider-data`, { headers: { cookie } }),
    close: () => op.stop(),
  };
  return testbed;
}

