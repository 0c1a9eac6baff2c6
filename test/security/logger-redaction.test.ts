// Attack: reading credentials out of the logs. A logger that records everything it is handed (errors with their
// causes, warnings, debug messages with their metadata, debug on) watches a full OpenID Connect sign-in against a
// real OP, with PostgreSQL sessions, and a session check. No credential of that sign-in appears anywhere in what it
// recorded: not the provider's access, refresh or ID token, the authorization code, the state, the client secret,
// the session token, nor authchart's secret. (A custom `logger.debug` used to receive adapter arguments, provider
// tokens among them, even without `debug: true`.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LoggerInstance } from '../../src/core/options.js';
import { DEFAULT_CLIENT_SECRET } from '../e2e/peers/oidc.js';
import { tokenTestbed, type TokenTestbed } from '../e2e/tokens/harness.js';
import { ORIGIN, TEST_SECRET, testAuth } from '../support/auth-app.js';
import { createClient } from '../support/client.js';
import { CookieJar } from '../support/cookie-jar.js';
import { SESSION_COOKIE } from '../session/database-harness.js';

/** Everything a value holds, as text: an error's message, stack and cause too, objects at any depth. */
function text(value: unknown, seen = new WeakSet<object>()): string {
  if (value === null || value === undefined) return '';
  if (typeof value !== 'object') return String(value);
  if (seen.has(value)) return '';
  seen.add(value);
  const own = value instanceof Error ? [value.message, value.stack, text(value.cause, seen)] : [];
  return [...own, ...Object.entries(value).map(([k, v]) => `${k}=${text(v, seen)}`)].join('\n');
}

let bed: TokenTestbed;
beforeAll(async () => {
  bed = await tokenTestbed();
});
afterAll(async () => {
  await bed?.close();
});

describe('what a logger receives', () => {
  for (const [debug, who] of [[false, 'alice'], [true, 'bob']] as const) {
    it(`holds no credential of an OIDC sign-in (debug: ${debug})`, async () => {
      const recorded: string[] = [];
      const logger: LoggerInstance = {
        error: (e) => void recorded.push(text(e)),
        warn: (code, message) => void recorded.push(`${code} ${message ?? ''}`),
        debug: (message, metadata) => void recorded.push(`${message} ${text(metadata)}`),
      };
      const t = testAuth({ ...bed.configs[0], debug, logger });
      const visited: string[] = [];
      const client = createClient({ fetch: (r) => (visited.push(r.url), t.handle(r)), baseUrl: ORIGIN });
      const start = await client.post('/auth/signin/oidc', { csrfToken: await t.csrfToken(client), callbackUrl: '/after' });
      const done = await client.submit(await bed.op.login(start.location!.href, who, { cookies: new CookieJar() }));
      expect(done.location?.pathname, recorded.filter((r) => /Error/.test(r)).join('\n').slice(0, 1500)).toBe('/after');
      expect((await (await client.get('/auth/session')).json())?.user).toBeDefined();

      const callback = new URL(visited.find((u) => u.includes('/auth/callback/oidc'))!);
      const [account] = await bed.sql<{ access_token: string; refresh_token: string; id_token: string }>(
        `SELECT access_token, refresh_token, id_token FROM accounts WHERE provider = 'oidc' AND provider_account_id = $1`,
        [who],
      );
      const credentials = {
        access_token: account!.access_token,
        refresh_token: account!.refresh_token,
        id_token: account!.id_token,
        code: callback.searchParams.get('code')!,
        state: callback.searchParams.get('state')!,
        client_secret: DEFAULT_CLIENT_SECRET,
        session_token: client.cookies.get(SESSION_COOKIE)!,
        secret: TEST_SECRET,
      };
      for (const [name, value] of Object.entries(credentials)) expect(value, name).toBeTruthy();
      // The recording saw the sign-in (so an empty log is no pass).
      expect(recorded.length).toBeGreaterThan(debug ? 5 : 0);
      const all = recorded.join('\n');
      for (const [name, value] of Object.entries(credentials)) expect(all.includes(value), `${name} reached the logger`).toBe(false);
    });
  }
});
