import { afterEach, describe, expect, it, vi } from 'vitest';
import { resolveConfig } from '../../src/core/config.js';
import {
  DuplicateProviderId,
  ExperimentalFeatureNotEnabled,
  MissingAdapter,
  MissingAuthorize,
  MissingSecret,
} from '../../src/core/errors.js';
import type { AuthConfig } from '../../src/core/options.js';
import { AuthInit } from '../../src/http/integrations/fetch.js';
import { Credentials } from '../../src/providers/credentials.js';
import { recordingLogger, TEST_SECRET } from '../support/auth-app.js';

const OLD_SECRET = 'an-older-secret-that-is-long-enough-0123456789';

const credentials = () =>
  Credentials({
    credentials: { email: {}, password: {} },
    authorize: (c) => (c.password === 'pw' ? { id: 'u1', email: String(c.email), name: 'Ada' } : null),
  });

function base(overrides: Partial<AuthConfig> = {}): AuthConfig {
  return { providers: [credentials()], secret: TEST_SECRET, logger: recordingLogger(), ...overrides };
}

/** A complete in-memory database adapter shape (only its presence matters to configuration). */
function adapterStub() {
  const fn = () => null;
  return {
    createUser: fn, getUser: fn, getUserByEmail: fn, getUserByAccount: fn, updateUser: fn, linkAccount: fn,
    createSession: fn, getSessionAndUser: fn, updateSession: fn, deleteSession: fn,
  } as unknown as NonNullable<AuthConfig['adapter']>;
}

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('defaults', () => {
  it('serves under /auth with JWT sessions of 30 days refreshed once a day', () => {
    const config = resolveConfig(base(), { env: {} });
    expect(config.basePath).toBe('/auth');
    expect(config.session.strategy).toBe('jwt');
    expect(config.session.maxAge).toBe(30 * 24 * 60 * 60);
    expect(config.session.updateAge).toBe(24 * 60 * 60);
    expect(config.jwt.maxAge).toBe(30 * 24 * 60 * 60);
    expect(config.skipCSRFCheck).toBe(false);
  });

  it('uses the database strategy when an adapter is configured', () => {
    expect(resolveConfig(base({ adapter: adapterStub() }), { env: {} }).session.strategy).toBe('database');
  });

  it('lets an explicit strategy override the adapter default', () => {
    expect(resolveConfig(base({ adapter: adapterStub(), session: { strategy: 'jwt' } }), { env: {} }).session.strategy).toBe('jwt');
  });

  it('keeps explicit session and JWT lifetimes, with jwt.maxAge following session.maxAge', () => {
    const config = resolveConfig(base({ session: { maxAge: 3600, updateAge: 0 } }), { env: {} });
    expect(config.session).toMatchObject({ maxAge: 3600, updateAge: 0 });
    expect(config.jwt.maxAge).toBe(3600);
  });

  it('normalizes basePath slashes', () => {
    expect(resolveConfig(base({ basePath: 'custom/auth/' }), { env: {} }).basePath).toBe('/custom/auth');
  });

  it('serves AuthInit under /api/auth by default', async () => {
    const { handlers } = AuthInit(base({ trustHost: true }));
    const res = await handlers.GET(new Request('http://localhost:3000/api/auth/providers'));
    expect(res.status).toBe(200);
    expect(Object.keys(await res.json())).toEqual(['credentials']);
    const elsewhere = await handlers.GET(new Request('http://localhost:3000/auth/providers'));
    expect(elsewhere.status).toBe(404);
  });
});

describe('environment inference', () => {
  it('reads AUTH_SECRET first, then AUTH_SECRET_1..3 as older secrets, in that order', () => {
    const env = { AUTH_SECRET: 'current-'.padEnd(40, 'c'), AUTH_SECRET_1: 'one-'.padEnd(40, '1'), AUTH_SECRET_2: 'two-'.padEnd(40, '2'), AUTH_SECRET_3: 'three-'.padEnd(40, '3') };
    const config = resolveConfig(base({ secret: undefined }), { env });
    expect(config.secrets).toEqual([env.AUTH_SECRET, env.AUTH_SECRET_1, env.AUTH_SECRET_2, env.AUTH_SECRET_3]);
  });

  it('prefers an explicit secret over the environment', () => {
    const config = resolveConfig(base({ secret: [TEST_SECRET, OLD_SECRET] }), { env: { AUTH_SECRET: 'from-env-'.padEnd(40, 'e') } });
    expect(config.secrets).toEqual([TEST_SECRET, OLD_SECRET]);
  });

  it('takes the deployment origin from AUTH_URL, and a base path from its path', () => {
    const config = resolveConfig(base(), { env: { AUTH_URL: 'https://app.example.com/custom-auth' } });
    expect(config.url?.origin).toBe('https://app.example.com');
    expect(config.basePath).toBe('/custom-auth');
    expect(resolveConfig(base({ basePath: '/explicit' }), { env: { AUTH_URL: 'https://app.example.com/custom-auth' } }).basePath).toBe('/explicit');
  });

  it('warns about an AUTH_URL that is not a URL and ignores it', () => {
    const logger = recordingLogger();
    const config = resolveConfig(base({ logger }), { env: { AUTH_URL: 'not a url' } });
    expect(config.url).toBeUndefined();
    expect(logger.warnings).toContain('invalid-auth-url');
  });

  it('reads AUTH_TRUST_HOST strictly: "false" means false, "true" and "1" mean true', () => {
    const production = { NODE_ENV: 'production' };
    expect(resolveConfig(base(), { env: { AUTH_TRUST_HOST: 'false' } }).trustHost).toBe(false);
    expect(resolveConfig(base(), { env: { AUTH_TRUST_HOST: '0' } }).trustHost).toBe(false);
    expect(resolveConfig(base(), { env: { ...production, AUTH_TRUST_HOST: 'true' } }).trustHost).toBe(true);
    expect(resolveConfig(base(), { env: { ...production, AUTH_TRUST_HOST: '1' } }).trustHost).toBe(true);
  });

  it('lets an explicit trustHost win over AUTH_TRUST_HOST', () => {
    expect(resolveConfig(base({ trustHost: true }), { env: { AUTH_TRUST_HOST: 'false' } }).trustHost).toBe(true);
    expect(resolveConfig(base({ trustHost: false }), { env: { AUTH_TRUST_HOST: 'true' } }).trustHost).toBe(false);
  });

  it('trusts the host by default in development only', () => {
    expect(resolveConfig(base(), { env: { NODE_ENV: 'development' } }).trustHost).toBe(true);
    expect(resolveConfig(base(), { env: { NODE_ENV: 'production' } }).trustHost).toBe(false);
  });

  it('reads AUTH_REDIRECT_PROXY_URL unless redirectProxyUrl is set', () => {
    const env = { AUTH_REDIRECT_PROXY_URL: 'https://proxy.example.com/auth' };
    expect(resolveConfig(base(), { env }).redirectProxyUrl).toBe(env.AUTH_REDIRECT_PROXY_URL);
    expect(resolveConfig(base({ redirectProxyUrl: 'https://mine.example.com/auth' }), { env }).redirectProxyUrl).toBe('https://mine.example.com/auth');
  });

  it('reads process.env when no environment is passed', () => {
    vi.stubEnv('AUTH_SECRET', 'process-env-secret-'.padEnd(40, 'p'));
    for (const n of [1, 2, 3]) vi.stubEnv(`AUTH_SECRET_${n}`, '');
    expect(resolveConfig(base({ secret: undefined })).secrets).toEqual(['process-env-secret-'.padEnd(40, 'p')]);
  });
});

describe('validation', () => {
  it('throws MissingSecret in production without a secret', () => {
    expect(() => resolveConfig(base({ secret: undefined }), { env: { NODE_ENV: 'production' } })).toThrow(MissingSecret);
  });

  it('uses a random development secret, with a warning, outside production', () => {
    const logger = recordingLogger();
    const config = resolveConfig(base({ secret: undefined, logger }), { env: { NODE_ENV: 'development' } });
    expect(config.secrets).toHaveLength(1);
    expect(config.secrets[0]!.length).toBeGreaterThanOrEqual(32);
    expect(logger.warnings).toContain('missing-secret');
  });

  it('warns about a secret shorter than 32 characters but accepts it', () => {
    const logger = recordingLogger();
    const config = resolveConfig(base({ secret: 'short', logger }), { env: {} });
    expect(config.secrets).toEqual(['short']);
    expect(logger.warnings).toContain('weak-secret');
  });

  it('does not warn about a 32-character secret', () => {
    const logger = recordingLogger();
    resolveConfig(base({ secret: 'x'.repeat(32), logger }), { env: {} });
    expect(logger.warnings).not.toContain('weak-secret');
  });

  it('throws DuplicateProviderId for two providers with one id', () => {
    expect(() => resolveConfig(base({ providers: [credentials(), credentials()] }), { env: {} })).toThrow(DuplicateProviderId);
  });

  it('throws MissingAuthorize for a credentials provider without authorize', () => {
    const broken = { id: 'credentials', name: 'Credentials', type: 'credentials' as const, credentials: {} };
    expect(() => resolveConfig(base({ providers: [broken] }), { env: {} })).toThrow(MissingAuthorize);
  });

  it('throws MissingAdapter for the database strategy without an adapter', () => {
    expect(() => resolveConfig(base({ session: { strategy: 'database' } }), { env: {} })).toThrow(MissingAdapter);
  });

  it('throws ExperimentalFeatureNotEnabled for WebAuthn without the experimental flag', () => {
    const webauthn = { id: 'passkey', name: 'Passkey', type: 'webauthn' as const };
    expect(() => resolveConfig(base({ providers: [webauthn], adapter: adapterStub() }), { env: {} })).toThrow(ExperimentalFeatureNotEnabled);
  });

  it('fails a static configuration when the integration is created, not at the first request', () => {
    expect(() => AuthInit(base({ session: { strategy: 'database' } }))).toThrow(MissingAdapter);
  });
});

describe('lazy initialization', () => {
  it('calls a function config with the incoming request', async () => {
    const seen: (Request | undefined)[] = [];
    const { handlers } = AuthInit((request) => {
      seen.push(request);
      return base({ trustHost: true, basePath: request?.headers.get('x-tenant') === 'b' ? '/b/auth' : '/a/auth' });
    });
    const request = new Request('http://localhost:3000/b/auth/providers', { headers: { 'x-tenant': 'b' } });
    const res = await handlers.GET(request);
    expect(res.status).toBe(200);
    expect(seen).toEqual([request]);
    expect(await res.json()).toMatchObject({ credentials: { signinUrl: 'http://localhost:3000/b/auth/signin/credentials' } });
  });

  it('calls a function config with undefined when signIn runs without a request', async () => {
    vi.stubEnv('AUTH_URL', 'http://localhost:3000');
    const seen: (Request | undefined)[] = [];
    const config = base({ trustHost: true });
    const { signIn } = AuthInit((request) => {
      seen.push(request);
      return config;
    });
    const headers = new Headers();
    const url = await signIn('credentials', { email: 'ada@example.com', password: 'pw', redirectTo: '/home', responseHeaders: headers, redirect: false });
    expect(seen[0]).toBeUndefined();
    expect(url).toBe('http://localhost:3000/home');
    expect(headers.getSetCookie().some((line) => line.startsWith('authchart.session-token='))).toBe(true);
  });

  it('reports a configuration error from a function config as a 500, not a crash', async () => {
    const { handlers } = AuthInit(() => base({ session: { strategy: 'database' } }));
    const spy = vi.spyOn(console, 'error').mockImplementation(() => {});
    const res = await handlers.GET(new Request('http://localhost:3000/api/auth/session'));
    expect(res.status).toBe(500);
    expect(spy).toHaveBeenCalled();
    spy.mockRestore();
  });
});
