// Environment inference beyond the AUTH_ names: Auth.js v4's NEXTAUTH_SECRET / NEXTAUTH_URL as aliases the AUTH_
// names win over (spec section 5), and trustHost turned on by the platforms that set Host themselves (Vercel,
// Cloudflare Pages), where an explicit trustHost: false or AUTH_TRUST_HOST always wins.
import { afterEach, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/core/config.js';
import { MissingSecret } from '../../src/core/errors.js';
import type { AuthConfig } from '../../src/core/options.js';
import { decodeSync } from '../../src/session/jwt.js';
import { recordingLogger } from '../support/auth-app.js';
import { serveLoopback, type LoopbackApp } from '../support/loopback-app.js';
import { ADA, adaProvider, PASSWORD, SESSION_COOKIE } from '../http/helpers.js';

const LEGACY_SECRET = 'a-v4-deployment-secret-0123456789abcdef';
const NEW_SECRET = 'the-authchart-secret-0123456789abcdefgh';
const production = { NODE_ENV: 'production' };

const resolve = (env: Record<string, string>, config: Partial<AuthConfig> = {}) => {
  const logger = recordingLogger();
  return { config: resolveConfig({ providers: [], logger, ...config }, { env }), logger };
};

describe('legacy NEXTAUTH_SECRET and NEXTAUTH_URL', () => {
  it('a v4-style production deployment (NEXTAUTH_SECRET only) starts, using it as the secret', () => {
    expect(() => resolve(production)).toThrow(MissingSecret);
    expect(resolve({ ...production, NEXTAUTH_SECRET: LEGACY_SECRET }).config.secrets).toEqual([LEGACY_SECRET]);
  });

  it('AUTH_SECRET wins over NEXTAUTH_SECRET; AUTH_SECRET_1..3 still follow as older secrets', () => {
    expect(resolve({ AUTH_SECRET: NEW_SECRET, NEXTAUTH_SECRET: LEGACY_SECRET }).config.secrets).toEqual([NEW_SECRET]);
    expect(resolve({ NEXTAUTH_SECRET: LEGACY_SECRET, AUTH_SECRET_1: NEW_SECRET }).config.secrets).toEqual([LEGACY_SECRET, NEW_SECRET]);
    // An empty AUTH_SECRET (a blank line in a .env file) counts as unset.
    expect(resolve({ AUTH_SECRET: '', NEXTAUTH_SECRET: LEGACY_SECRET }).config.secrets).toEqual([LEGACY_SECRET]);
  });

  it('an explicit secret wins over both', () => {
    expect(resolve({ NEXTAUTH_SECRET: LEGACY_SECRET }, { secret: NEW_SECRET }).config.secrets).toEqual([NEW_SECRET]);
  });

  it('NEXTAUTH_URL gives the origin and base path; AUTH_URL wins over it', () => {
    const legacy = resolve({ NEXTAUTH_SECRET: LEGACY_SECRET, NEXTAUTH_URL: 'https://old.example.com/api/auth' }).config;
    expect(legacy.url?.origin).toBe('https://old.example.com');
    expect(legacy.basePath).toBe('/api/auth');
    const both = resolve({ NEXTAUTH_SECRET: LEGACY_SECRET, NEXTAUTH_URL: 'https://old.example.com', AUTH_URL: 'https://new.example.com/auth' }).config;
    expect(both.url?.origin).toBe('https://new.example.com');
    expect(both.basePath).toBe('/auth');
  });

  it('a NEXTAUTH_URL that is not a URL is named in the warning and ignored', () => {
    const { config, logger } = resolve({ NEXTAUTH_URL: 'not a url' });
    expect(config.url).toBeUndefined();
    expect(logger.warnings).toContain('invalid-auth-url');
  });

  describe('over HTTP: a deployment configured only by NEXTAUTH_* signs in and reads its session', () => {
    let app: LoopbackApp | undefined;
    afterEach(async () => {
      await app?.close();
      app = undefined;
    });

    it('seals the session with NEXTAUTH_SECRET and answers on the NEXTAUTH_URL origin', async () => {
      app = await serveLoopback({ providers: [adaProvider()], logger: recordingLogger() }, { ...production, NEXTAUTH_SECRET: LEGACY_SECRET, NEXTAUTH_URL: '{origin}/auth' });
      const res = await app.postForm('/auth/callback/credentials', { email: ADA.email, password: PASSWORD, callbackUrl: '/home' });
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe(`${app.origin}/home`);
      const line = res.headers.getSetCookie().find((l) => l.startsWith(`${SESSION_COOKIE}=`))!;
      const token = line.split(';', 1)[0]!.slice(SESSION_COOKIE.length + 1);
      expect(decodeSync({ token, secret: LEGACY_SECRET, salt: SESSION_COOKIE })).toMatchObject({ email: ADA.email });
      const session = await app.fetch('/auth/session', { cookie: `${SESSION_COOKIE}=${token}` });
      expect(await session.json()).toMatchObject({ user: { email: ADA.email } });
    });
  });
});

describe('trustHost from the platform', () => {
  const secret = NEW_SECRET;

  it('VERCEL or CF_PAGES turns trustHost on in production, without the "trust any host" warning', () => {
    for (const name of ['VERCEL', 'CF_PAGES']) {
      const { config, logger } = resolve({ ...production, [name]: '1' }, { secret });
      expect(config.trustHost).toBe(true);
      expect(config.trustedHosts).toBeUndefined();
      expect(logger.warnings).not.toContain('trust-host-any');
    }
    expect(resolve(production, { secret }).config.trustHost).toBe(false);
  });

  it('an explicit trustHost: false always wins, and so does AUTH_TRUST_HOST=false', () => {
    expect(resolve({ ...production, VERCEL: '1' }, { secret, trustHost: false }).config.trustHost).toBe(false);
    expect(resolve({ ...production, CF_PAGES: '1', AUTH_TRUST_HOST: 'false' }, { secret }).config.trustHost).toBe(false);
  });

  it('an explicit allow-list stays an allow-list on a platform', () => {
    const { config } = resolve({ ...production, VERCEL: '1' }, { secret, trustHost: ['app.example.com'] });
    expect(config.trustedHosts?.patterns).toEqual(['app.example.com']);
    expect(resolve({ ...production, VERCEL: '1', AUTH_TRUST_HOST: 'app.example.com' }, { secret }).config.trustedHosts?.patterns).toEqual(['app.example.com']);
  });

  it('a platform variable set to "0", "false" or "" detects nothing', () => {
    for (const value of ['0', 'false', '']) expect(resolve({ ...production, VERCEL: value }, { secret }).config.trustHost).toBe(false);
  });

  describe('over HTTP', () => {
    let app: LoopbackApp | undefined;
    afterEach(async () => {
      await app?.close();
      app = undefined;
    });

    it('in production with VERCEL=1 the forwarded host names the sign-in links; without it the host is not believed', async () => {
      const headers = { 'x-forwarded-host': 'app.example.com', 'x-forwarded-proto': 'https' };
      app = await serveLoopback({ providers: [adaProvider()], secret, logger: recordingLogger() }, { ...production, VERCEL: '1' });
      const providers = (await (await app.fetch('/auth/providers', { headers })).json()) as Record<string, { signinUrl: string }>;
      expect(providers.credentials!.signinUrl).toBe('https://app.example.com/auth/signin/credentials');
      await app.close();
      app = await serveLoopback({ providers: [adaProvider()], secret, logger: recordingLogger() }, production);
      const refused = await app.fetch('/auth/providers', { headers });
      expect(refused.status).toBeGreaterThanOrEqual(400);
      expect(await refused.text()).not.toContain('app.example.com');
    });
  });
});
