// Attacks on provider tokens kept in the sealed JWT session cookie (`session.providerTokens: 'in-session-cookie'`),
// against a real OpenID Provider. The claim is authchart's alone: a jwt callback that merges what a client sends
// into the token (a common Auth.js pattern) must not let that client plant tokens of its choosing (the app would
// call the provider as someone else) or clear the refusal mark; no callback, event or /session answer ever holds them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RefreshTokenError } from '../../src/core/errors.js';
import type { JWT } from '../../src/core/types.js';
import { getAccessToken } from '../../src/http/integrations/access-token.js';
import { getToken } from '../../src/session/get-token.js';
import { TEST_SECRET } from '../support/auth-app.js';
import { cookieTokenTestbed, SESSION_COOKIE, type CookieTokenTestbed } from '../e2e/tokens/cookie-harness.js';

let t: CookieTokenTestbed;
beforeAll(async () => {
  t = await cookieTokenTestbed();
});
afterAll(async () => {
  await t?.close();
});

const planted = { provider: 'oidc', access_token: 'planted-access', refresh_token: 'planted-refresh', expires_at: 4_102_444_800 };
// The careless-but-common jwt callback: whatever the client's update sends is merged into the token.
const merging = { jwt: ({ token, session, trigger }: { token: JWT; session?: unknown; trigger?: string }) => (trigger === 'update' ? { ...token, ...(session as object) } : token) };

async function token(config: ReturnType<CookieTokenTestbed['config']>, cookie: string): Promise<string | null> {
  return getAccessToken(t.request(cookie), config, 'oidc', { cookies: new Headers() });
}

describe('provider tokens in the session cookie cannot be planted, cleared or read through callbacks', () => {
  it('a session update merged into the token by the jwt callback plants no provider tokens', async () => {
    const config = t.config({ callbacks: merging });
    const browser = await t.browser(config, 'alice');
    const real = t.claims(browser.cookie()).provider_tokens!;
    const csrfToken = await browser.app.csrfToken(browser.client);
    const res = await browser.client.post('/auth/session', JSON.stringify({ csrfToken, data: { provider_tokens: planted, name: 'Mallory' } }), { json: true });
    expect(res.status).toBe(200);
    const after = t.claims(browser.cookie());
    expect(after.name).toBe('Mallory'); // the merge happened: only the reserved claim was put back
    expect(after.provider_tokens).toEqual(real);
    expect(await token(config, browser.cookie())).toBe(real.access_token);
  });

  it('a jwt callback that sets the claim at sign-in or on a read is overruled', async () => {
    const config = t.config({ callbacks: { jwt: ({ token }) => ({ ...token, provider_tokens: planted }) } });
    const browser = await t.browser(config, 'bob');
    const real = t.claims(browser.cookie()).provider_tokens!;
    expect(real.access_token).not.toBe(planted.access_token);
    await browser.client.get('/auth/session');
    expect(t.claims(browser.cookie()).provider_tokens).toEqual(real);
    expect(await token(config, browser.cookie())).toBe(real.access_token);
  });

  it('an update cannot clear the refusal mark', async () => {
    const config = t.config({ callbacks: merging });
    const browser = await t.browser(config, 'alice');
    await t.revoke(String(t.claims(browser.cookie()).provider_tokens!.refresh_token));
    const expired = t.expire(browser.cookie());
    const headers = new Headers();
    await expect(getAccessToken(t.request(expired), config, 'oidc', { cookies: headers })).rejects.toBeInstanceOf(RefreshTokenError);
    browser.client.cookies.setFromLines('http://localhost:3000/', headers.getSetCookie());
    expect(t.claims(browser.cookie()).provider_tokens).toEqual({ provider: 'oidc', error: 'RefreshTokenError' });
    const csrfToken = await browser.app.csrfToken(browser.client);
    await browser.client.post('/auth/session', JSON.stringify({ csrfToken, data: { provider_tokens: planted } }), { json: true });
    expect(t.claims(browser.cookie()).provider_tokens).toEqual({ provider: 'oidc', error: 'RefreshTokenError' });
    const start = { ...t.grants };
    await expect(token(config, browser.cookie())).rejects.toBeInstanceOf(RefreshTokenError);
    expect(t.grants).toEqual(start);
  });

  it('callbacks, events and getToken never see the tokens; /session never shows them', async () => {
    const seen: unknown[] = [];
    const config = t.config({
      callbacks: {
        jwt: ({ token }) => (seen.push(token), token),
        session: ({ session, token }) => (seen.push(token), { ...session, token }),
      },
      events: { session: (message) => void seen.push(message) },
    });
    const browser = await t.browser(config, 'bob');
    const real = t.claims(browser.cookie()).provider_tokens!;
    const body = await (await browser.client.get('/auth/session')).text();
    const decoded = await getToken({ req: t.request(browser.cookie()), secret: TEST_SECRET, salt: SESSION_COOKIE });
    expect(decoded?.sub).toBeTruthy();
    expect(seen.length).toBeGreaterThan(2);
    for (const text of [body, JSON.stringify(seen), JSON.stringify(decoded)]) {
      expect(text).not.toContain(String(real.access_token));
      expect(text).not.toContain(String(real.refresh_token));
      expect(text).not.toContain('provider_tokens');
    }
  });
});
