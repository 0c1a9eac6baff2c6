// Attacks on the OAuth/OIDC sign-in, end to end against real OPs: forged, replayed, stale or foreign callbacks,
// flow cookies and tokens. Each ends in its named error type, and no session cookie is ever set.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Account } from '../../src/core/types.js';
import { oauthFlow } from '../../src/flows/oauth/machine.js';
import { decodeSync, encodeSync } from '../../src/session/jwt.js';
import { TEST_SECRET } from '../support/auth-app.js';
import type { OidcProviderHarness } from './peers/oidc.js';
import {
  BASE,
  callbackWithCookie,
  expectFailure,
  FLOW_COOKIE,
  flowCookieOf,
  flowCookieValue,
  lastError,
  loggedTraces,
  setsSession,
  signInThrough,
  startSignIn,
  withParam,
} from './oauth/harness.js';
import { ownTokenRewrite, startTestbed, type Testbed } from './oauth/testbed.js';

let bed: Testbed;
let op: OidcProviderHarness;
let op2: OidcProviderHarness;
let app: Testbed['app'];

beforeAll(async () => {
  bed = await startTestbed();
  ({ op, op2, app } = bed);
});
afterAll(async () => {
  await bed?.stop();
});
afterEach(() => {
  vi.useRealTimers();
  ownTokenRewrite.apply = (tokens) => tokens;
});

describe('attacks and failures: each is its named error, and no session cookie is set', () => {
  it('the provider answering error=access_denied is an OAuthCallbackError', async () => {
    const t = app();
    const { nav, callback } = await signInThrough(t, op, 'oidc', 'alice', { login: { cancel: true } });
    expect(new URL(nav.url).searchParams.get('error')).toBe('access_denied');
    expectFailure(t, callback, 'OAuthCallbackError');
    expect(callback.location!.pathname).toBe('/auth/signin');
    // The page is told it was a cancel, and by which provider, so it can say so.
    expect([callback.location!.searchParams.get('code'), callback.location!.searchParams.get('provider')]).toEqual(['access_denied', 'oidc']);
  });

  it('a state that does not match the flow is an InvalidCheck', async () => {
    const t = app();
    const start = await startSignIn(t, 'oidc');
    const nav = await op.login(start.location!.href, 'alice');
    const res = await t.client.get(withParam(nav.url, 'state', 'x'.repeat(43)));
    expectFailure(t, res, 'InvalidCheck', 'Configuration');
    expect(lastError(t).message).toMatch(/state/i);
  });

  it('a callback without state is an InvalidCheck', async () => {
    const t = app();
    const start = await startSignIn(t, 'oidc');
    const nav = await op.login(start.location!.href, 'alice');
    expectFailure(t, await t.client.get(withParam(nav.url, 'state', undefined)), 'InvalidCheck', 'Configuration');
  });

  it('a nonce the OP saw differently is an InvalidCheck at the token step', async () => {
    const t = app();
    const start = await startSignIn(t, 'oidc');
    const tampered = withParam(start.location!, 'nonce', 'n'.repeat(43));
    const res = await t.client.submit(await op.login(tampered, 'alice'));
    expectFailure(t, res, 'InvalidCheck', 'Configuration');
    expect(lastError(t).message).toMatch(/nonce/);
    expect(lastError(t).cause?.state).toBe('failed.invalidCheck');
  });

  it('a missing flow cookie (another browser) is an InvalidCheck', async () => {
    const t = app();
    const start = await startSignIn(t, 'oidc');
    const nav = await op.login(start.location!.href, 'alice');
    expectFailure(t, await t.newClient().submit(nav), 'InvalidCheck', 'Configuration');
    expect(lastError(t).message).toMatch(/missing/);
  });

  it('a flow cookie past its 15 minutes is an InvalidCheck, even if the browser still sends it', async () => {
    const t = app();
    const start = await startSignIn(t, 'oidc');
    const cookie = `${FLOW_COOKIE}=${flowCookieValue(start)}`;
    const nav = await op.login(start.location!.href, 'alice');
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 16 * 60_000);
    const res = await callbackWithCookie(t.client, nav, cookie);
    expectFailure(t, res, 'InvalidCheck', 'Configuration');
    expect(lastError(t).message).toMatch(/could not be opened/);
  });

  it('the flow itself expires after 15 minutes, within the cookie codec clock tolerance too', async () => {
    const t = app();
    const start = await startSignIn(t, 'oidc');
    const cookie = `${FLOW_COOKIE}=${flowCookieValue(start)}`;
    const nav = await op.login(start.location!.href, 'alice');
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 15 * 60_000 + 5_000);
    const res = await callbackWithCookie(t.client, nav, cookie);
    expectFailure(t, res, 'InvalidCheck', 'Configuration');
    expect(lastError(t).message).toMatch(/took too long/);
    expect(loggedTraces(t).at(-1)?.trace.map((e) => `${e.from}->${e.to}`)).toEqual(['awaitingCallback->failed.invalidCheck']);
  });

  it('a tampered flow cookie is an InvalidCheck', async () => {
    const t = app();
    const start = await startSignIn(t, 'oidc');
    const value = flowCookieValue(start);
    const parts = value.split('.');
    const ct = parts[3];
    parts[3] = (ct[0] === 'A' ? 'B' : 'A') + ct.slice(1);
    const nav = await op.login(start.location!.href, 'alice');
    expectFailure(t, await callbackWithCookie(t.client, nav, `${FLOW_COOKIE}=${parts.join('.')}`), 'InvalidCheck', 'Configuration');
  });

  it('a flow cookie sealed by another version of the flow is an InvalidCheck', async () => {
    const t = app();
    const start = await startSignIn(t, 'oidc');
    const nav = await op.login(start.location!.href, 'alice');
    const current = decodeSync<{ v: number }>({ token: flowCookieValue(start), secret: TEST_SECRET, salt: FLOW_COOKIE })!;
    expect(current.v).toBe(oauthFlow.version);
    // Same secret, same provider, same state values: only the version differs (a cookie from before a deploy).
    const old = encodeSync({ token: { ...current, v: oauthFlow.version - 1 }, secret: TEST_SECRET, salt: FLOW_COOKIE, maxAge: 900 });
    const res = await callbackWithCookie(t.client, nav, `${FLOW_COOKIE}=${old}`);
    expectFailure(t, res, 'InvalidCheck', 'Configuration');
    expect(lastError(t).message).toMatch(/another version/);
  });

  it("a callback for another provider does not see this provider's flow cookie (InvalidCheck), and leaves it to complete", async () => {
    const t = app();
    const start = await startSignIn(t, 'other');
    const nav = await op.login(start.location!.href, 'alice');
    // Same OP, same client: the browser holds only other's flow cookie, which oidc's callback does not read.
    const res = await t.client.get(nav.url.replace('/callback/other', '/callback/oidc'));
    expectFailure(t, res, 'InvalidCheck', 'Configuration');
    expect(lastError(t).message).toMatch(/missing/);
    expect(res.setCookie.some((line) => line.startsWith(`${flowCookieOf('other')}=`))).toBe(false);
    const back = await t.client.submit(nav);
    expect(back.location?.href).toBe(`${BASE}/dashboard`);
    expect(setsSession(back)).toBe(true);
  });

  it("a flow cookie issued for another provider, sent under this provider's name, is an InvalidCheck", async () => {
    const t = app();
    const start = await startSignIn(t, 'other');
    const value = flowCookieValue(start, 'other');
    const nav = await op.login(start.location!.href, 'alice');
    const oidcNav = { ...nav, url: nav.url.replace('/callback/other', '/callback/oidc') };
    // Its key is derived with other's cookie name as salt: under oidc's name it cannot even be opened.
    expectFailure(t, await callbackWithCookie(t.client, oidcNav, `${FLOW_COOKIE}=${value}`), 'InvalidCheck', 'Configuration');
    expect(lastError(t).message).toMatch(/could not be opened/);
    // Re-sealed under oidc's salt (only a holder of the secret could), the provider claim still refuses it.
    const claims = decodeSync<{ p: string }>({ token: value, secret: TEST_SECRET, salt: flowCookieOf('other') })!;
    expect(claims.p).toBe('other');
    const resealed = encodeSync({ token: claims, secret: TEST_SECRET, salt: FLOW_COOKIE, maxAge: 900 });
    expectFailure(t, await callbackWithCookie(t.client, oidcNav, `${FLOW_COOKIE}=${resealed}`), 'InvalidCheck', 'Configuration');
    expect(lastError(t).cause).toMatchObject({ expected: 'oidc', actual: 'other' });
  });

  it('the same callback URL replayed after success is an InvalidCheck, with or without a new flow cookie', async () => {
    const t = app();
    const { nav, callback } = await signInThrough(t, op, 'oidc', 'alice');
    expect(setsSession(callback)).toBe(true);
    expectFailure(t, await t.client.submit(nav), 'InvalidCheck', 'Configuration');
    // A fresh sign-in's flow cookie does not help: its state differs.
    await startSignIn(t, 'oidc');
    expectFailure(t, await t.client.submit(nav), 'InvalidCheck', 'Configuration');
    expect(lastError(t).message).toMatch(/state/i);
  });

  it('a code exchanged twice is refused by the OP and is an InvalidCheck (default checks: PKCE only)', async () => {
    const t = app();
    const first = await signInThrough(t, op, 'pkce-only', 'alice');
    expect(first.start.location!.searchParams.has('state')).toBe(false);
    expect(setsSession(first.callback)).toBe(true);
    // A new sign-in in the same browser gives a valid flow cookie, then the old callback is replayed into it.
    await startSignIn(t, 'pkce-only');
    const res = await t.client.submit(first.nav);
    expectFailure(t, res, 'InvalidCheck', 'Configuration');
    expect(lastError(t).message).toMatch(/invalid_grant/);
    expect(lastError(t).cause?.state).toBe('failed.invalidCheck');
  });

  it('a code injected into another browser sign-in fails PKCE at the OP (InvalidCheck)', async () => {
    const t = app();
    const victim = t.newClient();
    const start = await startSignIn(t, 'pkce-only', { client: victim });
    const stolen = await op.login(start.location!.href, 'alice');
    // The attacker starts its own sign-in and feeds it the victim's never-used code.
    await startSignIn(t, 'pkce-only');
    const res = await t.client.submit(stolen);
    expectFailure(t, res, 'InvalidCheck', 'Configuration');
    expect(lastError(t).message).toMatch(/invalid_grant/);
  });

  it('a code issued to another client (another audience) is refused (InvalidCheck)', async () => {
    const t = app();
    const other = t.newClient();
    const startB = await startSignIn(t, 'app-b', { client: other });
    const navB = await op.login(startB.location!.href, 'alice');
    await startSignIn(t, 'pkce-only');
    const res = await t.client.get(navB.url.replace('/callback/app-b', '/callback/pkce-only'));
    expectFailure(t, res, 'InvalidCheck', 'Configuration');
  });

  it('an ID token issued to another client, slipped into the callback, is refused (InvalidCheck)', async () => {
    const signIns: { account: Account | null }[] = [];
    const t = app({ signIns });
    await signInThrough(t, op, 'app-b', 'alice', { client: t.newClient() });
    const foreign = signIns[0].account!.id_token!;
    const aud = JSON.parse(Buffer.from(foreign.split('.')[1], 'base64url').toString()).aud;
    expect(aud).toBe('authchart-b');
    const start = await startSignIn(t, 'oidc');
    const nav = await op.login(start.location!.href, 'alice');
    const res = await t.client.get(withParam(nav.url, 'id_token', foreign));
    expectFailure(t, res, 'InvalidCheck', 'Configuration');
    expect(signIns).toHaveLength(1);
  });

  it('a response from another issuer (mix-up) is an InvalidCheck, with or without its iss parameter', async () => {
    const t = app();
    const start = await startSignIn(t, 'oidc');
    // The browser is sent to op2 instead (which knows the same client id and redirect URI).
    const diverted = start.location!.href.replace(op.issuer, op2.issuer);
    const nav = await op2.login(diverted, 'alice');
    expect(new URL(nav.url).searchParams.get('iss')).toBe(op2.issuer);
    expectFailure(t, await t.client.submit(nav), 'InvalidCheck', 'Configuration');
    expect(lastError(t).cause).toMatchObject({ expected: op.issuer, actual: op2.issuer });

    const again = await startSignIn(t, 'oidc');
    const nav2 = await op2.login(again.location!.href.replace(op.issuer, op2.issuer), 'alice');
    expectFailure(t, await t.client.get(withParam(nav2.url, 'iss', undefined)), 'InvalidCheck', 'Configuration');
    expect(lastError(t).message).toMatch(/"iss".*missing/);
  });

  it('an ID token from a token endpoint of another issuer is an InvalidCheck at the token step', async () => {
    const t = app();
    const start = await startSignIn(t, 'mixup');
    expect(start.location!.origin).toBe(new URL(op2.issuer).origin);
    const nav = await op2.login(start.location!.href, 'alice');
    // Without the iss parameter (a provider that does not announce it) only the ID token can tell.
    const res = await t.client.get(withParam(nav.url, 'iss', undefined));
    expectFailure(t, res, 'InvalidCheck', 'Configuration');
    expect(lastError(t).message).toMatch(/"iss"/);
    expect(lastError(t).cause?.state).toBe('failed.invalidCheck');
    expect(loggedTraces(t).at(-1)?.trace.map((e) => e.to)).toEqual(['exchanging', 'failed.invalidCheck']);
  });
});

describe("ID tokens handed back by a provider's own token request", () => {
  /** The ID token with one claim of its payload rewritten, header and signature kept. */
  const withClaim = (jwt: string, claim: string, value: unknown) => {
    const [header, payload, signature] = jwt.split('.');
    const claims = { ...JSON.parse(Buffer.from(payload, 'base64url').toString()), [claim]: value };
    return `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
  };

  it('one whose claims were rewritten after signing fails its signature check, and signs no one in', async () => {
    const t = app();
    ownTokenRewrite.apply = (tokens) => ({ ...tokens, id_token: withClaim(String(tokens.id_token), 'email', 'mallory@example.test') });
    const { callback } = await signInThrough(t, op, 'own-token', 'alice');
    expectFailure(t, callback, 'OAuthCallbackError');
    expect(lastError(t).message).toMatch(/signature/i);
  });

  it.each([
    ['issued to another client', 'app-b', /"aud"/],
    ['from an earlier sign-in of the same client', 'own-token', /nonce/],
  ])('one %s is an InvalidCheck', async (_what, source, message) => {
    const signIns: { account: Account | null }[] = [];
    const t = app({ signIns });
    await signInThrough(t, op, source, 'alice', { client: t.newClient() });
    const captured = signIns[0].account!.id_token!;
    ownTokenRewrite.apply = (tokens) => ({ ...tokens, id_token: captured });
    const { callback } = await signInThrough(t, op, 'own-token', 'alice');
    expectFailure(t, callback, 'InvalidCheck', 'Configuration');
    expect(lastError(t).message).toMatch(message);
    expect(signIns).toHaveLength(1);
  });

  it('none at all, for a provider that signs in by its ID token, is an OAuthCallbackError', async () => {
    const t = app();
    ownTokenRewrite.apply = ({ id_token: _dropped, ...tokens }) => tokens;
    const { callback } = await signInThrough(t, op, 'own-token', 'alice');
    expectFailure(t, callback, 'OAuthCallbackError');
    expect(lastError(t).message).toMatch(/no ID token/);
  });
});
