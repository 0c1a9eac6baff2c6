// Attacks on the redirect proxy: the stable deployment forwards a provider's answer (a live authorization code)
// to wherever the `state` says. An attacker who could choose that place would collect codes, so only a state the
// app's own secret sealed, for this provider, naming a provider callback over http(s) on an origin the stable
// deployment's `redirectProxyOrigins` lists, is ever followed; and a preview seals only its configured origin.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RequestContext } from '../../src/core/request-context.js';
import { sealProxyState } from '../../src/flows/oauth/redirect-proxy.js';
import { OIDC } from '../../src/providers/oauth.js';
import { decodeSync, encodeSync } from '../../src/session/jwt.js';
import { UntrustedHost } from '../../src/core/errors.js';
import { parseTrustedHosts } from '../../src/core/hosts.js';
import { ORIGIN, TEST_SECRET, testAuth, type TestAuth } from '../support/auth-app.js';

const SALT = 'authchart.redirect-proxy-state';
const PREVIEW = 'https://pr-7.preview.test';
const ATTACKER = 'https://attacker.test';

// The stable deployment is the test app itself (http://localhost:3000); its OP is never reached by these requests.
/** The stable deployment; `origins` null leaves `redirectProxyOrigins` unset. */
function stable(origins: string[] | null = ['https://*.preview.test']): TestAuth {
  const op = { issuer: 'http://127.0.0.1:9', clientId: 'client', clientSecret: 'secret' };
  return testAuth({ redirectProxyUrl: `${ORIGIN}/auth`, redirectProxyOrigins: origins ?? undefined, providers: [OIDC({ id: 'oidc', name: 'OP', ...op }), OIDC({ id: 'other', name: 'Other', ...op })] });
}

/**
 * A state sealed by a preview deployment that shares the secret, as its sign-in would send it: the preview knows
 * its origin from AUTH_URL (`origin`), or believes a header on its `trustHost` list (`believed`).
 */
function previewState(providerId = 'oidc', secret = TEST_SECRET, origin = PREVIEW): string {
  const req = { authUrl: `${origin}/auth`, origin, config: { secrets: [secret], url: new URL(`${origin}/auth`), basePath: '/auth' } } as unknown as RequestContext;
  return sealProxyState(req, providerId);
}

/** A state an attacker seals with a secret of their own, naming their site. */
function forged(claims: Record<string, unknown>, secret: string): string {
  return encodeSync({ token: claims, secret, salt: SALT, maxAge: 900 });
}

function callback(t: TestAuth, state: string, providerId = 'oidc') {
  return t.client.get(`/auth/callback/${providerId}?${new URLSearchParams({ code: 'live-code', state, iss: 'http://127.0.0.1:9' })}`);
}

/** Refused: an error page on the stable deployment itself, an InvalidCheck in the log, and the code never leaves. */
async function expectRefused(t: TestAuth, state: string, providerId = 'oidc') {
  const res = await callback(t, state, providerId);
  expect(res.status).toBe(302);
  expect(res.location?.origin).toBe(ORIGIN);
  expect(res.location?.href).not.toContain('live-code');
  expect(res.location?.searchParams.get('error')).toBe('Configuration');
  expect(t.logger.errorTypes().at(-1)).toBe('InvalidCheck');
}

afterEach(() => {
  vi.useRealTimers();
});

describe('redirect proxy: what it forwards', () => {
  it('forwards a state sealed with the shared secret to the preview callback it names (control)', async () => {
    const t = stable();
    const state = previewState();
    const res = await callback(t, state);
    expect(res.status).toBe(302);
    expect(res.location?.origin).toBe(PREVIEW);
    expect(res.location?.pathname).toBe('/auth/callback/oidc');
    expect(res.location?.searchParams.get('code')).toBe('live-code');
    expect(res.location?.searchParams.get('state')).toBe(state);
  });

  it('also forwards a form_post answer (POST body) as the same parameters', async () => {
    const t = stable();
    const res = await t.client.post('/auth/callback/oidc', { code: 'live-code', state: previewState() });
    expect(res.location?.origin).toBe(PREVIEW);
    expect(res.location?.searchParams.get('code')).toBe('live-code');
  });
});

describe('redirect proxy: attacks', () => {
  it('refuses a state forged with another secret that points at an attacker', async () => {
    await expectRefused(stable(), forged({ target: `${ATTACKER}/auth/callback/oidc`, provider: 'oidc' }, 'the-attackers-own-secret-0123456789'));
  });

  it('refuses a genuine state with a tampered ciphertext', async () => {
    const parts = previewState().split('.');
    parts[3] = (parts[3][0] === 'A' ? 'B' : 'A') + parts[3].slice(1);
    await expectRefused(stable(), parts.join('.'));
  });

  it('refuses a state sealed for another provider', async () => {
    await expectRefused(stable(), previewState('other'), 'oidc');
    // Even one whose target is this provider's callback: the provider claim itself is checked.
    await expectRefused(stable(), forged({ target: `${PREVIEW}/auth/callback/oidc`, provider: 'other' }, TEST_SECRET), 'oidc');
  });

  it('refuses a correctly sealed state whose target is not a provider callback (defence in depth)', async () => {
    for (const target of [`${ATTACKER}/steal`, 'javascript:alert(1)//auth/callback/oidc', `${ATTACKER}/auth/callback/oidc?next=x`, '//attacker.test/auth/callback/oidc']) {
      await expectRefused(stable(), forged({ target, provider: 'oidc' }, TEST_SECRET));
    }
  });

  it('refuses an expired state', async () => {
    const state = previewState();
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 16 * 60 * 1000);
    await expectRefused(stable(), state);
  });

  it('never forwards a plain state, whatever it says', async () => {
    const t = stable();
    const res = await callback(t, `${ATTACKER}/auth/callback/oidc`);
    expect(res.location?.origin).toBe(ORIGIN);
    expect(res.location?.href).not.toContain('live-code');
  });

  it('forwards nothing for a deployment that is not the proxy: the preview runs its own flow', async () => {
    const t = testAuth({
      redirectProxyUrl: 'https://stable.test/auth',
      providers: [OIDC({ id: 'oidc', name: 'OP', issuer: 'http://127.0.0.1:9', clientId: 'client', clientSecret: 'secret' })],
    });
    const res = await callback(t, previewState());
    expect(res.location?.origin).toBe(ORIGIN);
  });
});

describe('redirect proxy: the origins it forwards to (issue 25, hole 4)', () => {
  it('forwards nowhere by default: a genuine state for a preview is refused when no origin is configured', async () => {
    await expectRefused(stable(null), previewState());
  });

  it('refuses a genuine state naming an origin off the list: the code never leaves for it', async () => {
    // What a preview that believed a forged X-Forwarded-Host would have sealed (before this was fixed), and near
    // misses of the pattern: another scheme, two labels, the parent itself, a look-alike suffix, another port.
    for (const origin of [ATTACKER, 'http://pr-7.preview.test', 'https://a.b.preview.test', 'https://preview.test', 'https://pr-7.preview.test.attacker.test', 'https://evilpreview.test', 'https://pr-7.preview.test:8443']) {
      await expectRefused(stable(), previewState('oidc', TEST_SECRET, origin));
    }
  });

  it('forwards to a listed exact origin, and to one label under a wildcard', async () => {
    const t = stable(['https://*.preview.test', 'http://localhost:3001']);
    for (const origin of ['https://pr-8.preview.test', 'http://localhost:3001']) {
      const res = await callback(t, previewState('oidc', TEST_SECRET, origin));
      expect(res.location?.origin).toBe(origin);
      expect(res.location?.searchParams.get('code')).toBe('live-code');
    }
  });

  it('refuses a malformed origin pattern at start', () => {
    for (const bad of ['*.preview.test', 'https://*.test', 'https://app.test/auth', 'https://user@app.test', 'ftp://app.test']) {
      expect(() => stable([bad])).toThrow(/redirectProxyOrigins/);
    }
  });
});

describe('redirect proxy: what a preview seals', () => {
  const base = { secrets: [TEST_SECRET], basePath: '/auth' };

  it('its AUTH_URL origin, not the Host it was sent', () => {
    const req = { authUrl: `${ATTACKER}/auth`, origin: ATTACKER, config: { ...base, url: new URL(`${PREVIEW}/auth`) } } as unknown as RequestContext;
    const claims = decodeSync<{ target: string }>({ token: sealProxyState(req, 'oidc'), secret: TEST_SECRET, salt: SALT });
    expect(claims?.target).toBe(`${PREVIEW}/auth/callback/oidc`);
  });

  it('a host its trustHost list allowed (detectOrigin refused any other)', () => {
    const req = { authUrl: `${PREVIEW}/auth`, origin: PREVIEW, config: { ...base, trustHost: true, trustedHosts: parseTrustedHosts(['*.preview.test']) } } as unknown as RequestContext;
    const claims = decodeSync<{ target: string }>({ token: sealProxyState(req, 'oidc'), secret: TEST_SECRET, salt: SALT });
    expect(claims?.target).toBe(`${PREVIEW}/auth/callback/oidc`);
  });

  it('nothing under `trustHost: true` without AUTH_URL: the Host could be anyone’s (UntrustedHost)', () => {
    const req = { authUrl: `${ATTACKER}/auth`, origin: ATTACKER, config: { ...base, trustHost: true } } as unknown as RequestContext;
    expect(() => sealProxyState(req, 'oidc')).toThrow(UntrustedHost);
  });
});
