// A browser's sign-ins against a running app over real HTTP (a Nitro build, an Express server): the CSRF token,
// the credentials form post, and an OpenID Connect round trip through a real OP.
import type { OidcProviderHarness } from '../e2e/peers/oidc.js';
import type { ClientResponse, TestClient } from './client.js';

/** GET {basePath}/csrf: the token, with its cookie now in the client's jar. */
export async function csrfTokenOf(client: TestClient, basePath = '/auth'): Promise<string> {
  const res = await client.get(`${basePath}/csrf`);
  if (res.status !== 200) throw new Error(`GET ${basePath}/csrf answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { csrfToken: string }).csrfToken;
}

/** Posts the credentials form as the sign-in page does; answers the redirect (to callbackUrl, or to the error page). */
export async function signInWithCredentials(client: TestClient, fields: Record<string, string>, callbackUrl: string, basePath = '/auth'): Promise<ClientResponse> {
  const csrfToken = await csrfTokenOf(client, basePath);
  return client.post(`${basePath}/callback/credentials`, { ...fields, csrfToken, callbackUrl });
}

/**
 * Starts a sign-in with an OIDC provider, logs in at the OP as `account`, and brings the browser back to the
 * callback; answers the callback's response (a redirect to callbackUrl with the session cookie, when it worked).
 */
export async function signInWithOidc(client: TestClient, op: OidcProviderHarness, account: string, callbackUrl: string, options: { providerId?: string; basePath?: string } = {}): Promise<{ start: ClientResponse; callback: ClientResponse }> {
  const { providerId = 'oidc', basePath = '/auth' } = options;
  const csrfToken = await csrfTokenOf(client, basePath);
  const start = await client.post(`${basePath}/signin/${providerId}`, { csrfToken, callbackUrl });
  if (start.status !== 302 || !start.location) throw new Error(`sign-in start answered ${start.status}: ${await start.text()}`);
  const nav = await op.login(start.location.href, account);
  return { start, callback: await client.submit(nav) };
}

/** GET {basePath}/session as JSON. */
export async function sessionOf(client: TestClient, basePath = '/auth'): Promise<{ user?: { name?: string; email?: string } } | null> {
  return (await (await client.get(`${basePath}/session`)).json()) as { user?: { name?: string; email?: string } } | null;
}
