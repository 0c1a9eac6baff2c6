// Attacks on sign-in that the throttle stops, over real HTTP from 127.0.0.1: guessing passwords for one account
// or many, flooding one address with magic links, and dodging the count with a forged X-Forwarded-For.
import { createClient } from 'redis';
import { afterEach, describe, expect, it } from 'vitest';
import { redisThrottleStore } from '../../src/core/throttle/store.js';
import { REDIS_URL } from '../support/shared-stores.js';
import type { AuthConfig, RateLimitedMessage } from '../../src/core/options.js';
import { Credentials } from '../../src/providers/credentials.js';
import { useMigratedPGlite } from '../support/pglite.js';
import { memoryOutbox } from '../support/magic-link.js';
import { serveLoopback, type LoopbackApp } from '../support/loopback-app.js';

const SECRET = 'throttling-attack-secret-0123456789abcdef';
const pglite = useMigratedPGlite();
const apps: LoopbackApp[] = [];
afterEach(async () => {
  while (apps.length) await apps.pop()!.close();
});

/** A credentials provider whose only account is ada / right-password; it counts every call of `authorize`. */
function passwordProvider() {
  const calls: string[] = [];
  const provider = Credentials({
    credentials: { username: { label: 'Username' }, password: { label: 'Password', type: 'password' } },
    authorize: async (c) => {
      calls.push(String(c.username));
      return c.username === 'ada' && c.password === 'right-password' ? { id: '1', name: 'Ada' } : null;
    },
  });
  return { provider, calls };
}

async function serve(config: Omit<AuthConfig, 'secret'>, env: Record<string, string> = {}): Promise<LoopbackApp> {
  const app = await serveLoopback({ secret: SECRET, trustHost: true, ...config } as AuthConfig, env);
  apps.push(app);
  return app;
}

const guess = (app: LoopbackApp, username: string, password: string, headers: Record<string, string> = {}) =>
  app.postForm('/auth/callback/credentials', { username, password }, headers);

describe('password guessing', () => {
  it('stops guesses at one account after the limit, in parallel too, and says nothing of which limit or account', async () => {
    const { provider, calls } = passwordProvider();
    const events: RateLimitedMessage[] = [];
    const app = await serve({ providers: [provider], throttle: { enabled: true }, events: { rateLimited: (m) => void events.push(m) } });

    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => guess(app, 'ada', `guess-${i}`)));
    // The default: 10 failures per account per 15 minutes.
    expect(calls.filter((u) => u === 'ada').length).toBeLessThanOrEqual(10);
    const refused = answers.filter((r) => r.status === 429);
    expect(refused.length).toBeGreaterThanOrEqual(20);
    expect(Number(refused[0].headers.get('retry-after'))).toBeGreaterThan(800);
    const page = await refused[0].text();
    expect(page).toContain('Too many sign-in attempts');
    expect(page).not.toMatch(/credentialsAccount|ada/);

    // Locked: even the right password is not tried, and the refusal looks the same as for an unknown account.
    const before = calls.length;
    const right = await guess(app, 'ada', 'right-password');
    expect(right.status).toBe(429);
    expect(calls.length).toBe(before);
    expect(right.headers.get('set-cookie') ?? '').not.toMatch(/session-token/);
    for (let i = 0; i < 10; i++) await guess(app, 'nobody', `x${i}`);
    const unknown = await guess(app, 'nobody', 'y');
    expect(unknown.status).toBe(right.status);
    const withoutNonce = async (r: Response) => (await r.text()).replace(/nonce="[^"]+"/g, '');
    expect(await withoutNonce(unknown)).toBe(await withoutNonce(right));
    expect(events.some((e) => e.limit === 'credentialsAccount' && e.provider === 'credentials' && e.clientAddress === '127.0.0.1')).toBe(true);
  });

  it('answers a data client with 429 JSON naming RateLimited and where to go', async () => {
    const { provider } = passwordProvider();
    const app = await serve({ providers: [provider], throttle: { enabled: true, rules: { credentialsAccount: { points: 1, duration: 600 } } } });
    await guess(app, 'ada', 'wrong', { 'x-auth-return-redirect': '1' });
    const res = await guess(app, 'ada', 'wrong', { 'x-auth-return-redirect': '1' });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    const body = (await res.json()) as { error: string; url: string };
    expect(body.error).toBe('RateLimited');
    expect(new URL(body.url).searchParams.get('error')).toBe('RateLimited');
  });

  it('counts failures only: the owner signs in as often as they like', async () => {
    const { provider, calls } = passwordProvider();
    const app = await serve({ providers: [provider], throttle: { enabled: true, rules: { credentialsAccount: { points: 3, duration: 600 } } } });
    for (let i = 0; i < 8; i++) {
      const res = await guess(app, 'ada', 'right-password');
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).not.toMatch(/error=/);
    }
    expect(calls).toHaveLength(8);
  });

  it('stops one client guessing across many accounts (credential stuffing)', async () => {
    const { provider, calls } = passwordProvider();
    const app = await serve({ providers: [provider], throttle: { enabled: true, rules: { credentialsClient: { points: 12, duration: 3600 } } } });
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => guess(app, `user${i}`, 'Password1')));
    expect(calls.length).toBeLessThanOrEqual(12);
    expect(answers.filter((r) => r.status === 429).length).toBeGreaterThanOrEqual(18);
  });

  it('fails closed when the store is down: no password is tried, 503 with Retry-After', async () => {
    const { provider, calls } = passwordProvider();
    const warnings: string[] = [];
    const silent = { kind: 'silent', counter: () => ({ consume: () => new Promise(() => {}), reward: async () => true, delete: async () => true }) };
    const app = await serve({ providers: [provider], logger: { warn: (code) => void warnings.push(code) }, throttle: { enabled: true, store: silent, timeout: 100 } });
    const res = await guess(app, 'ada', 'right-password');
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('30');
    expect(calls).toEqual([]);
    expect(warnings).toContain('throttle-store-down');
  });
});

describe('magic-link flooding', () => {
  it('leaves at most the limit of live tokens for one address, and sends no more mails than that', async () => {
    const outbox = memoryOutbox();
    const app = await serve({ adapter: pglite.adapter, providers: [outbox.provider], throttle: { enabled: true } });
    const victim = 'victim@example.com';
    const answers = await Promise.all(Array.from({ length: 25 }, () => app.postForm('/auth/signin/email', { email: victim, callbackUrl: '/' })));
    const { rows } = await pglite.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM verification_token WHERE identifier = $1`, [victim]);
    // The default: 5 links per address per hour.
    expect(rows[0].n).toBeLessThanOrEqual(5);
    expect(outbox.sent.filter((m) => m.identifier === victim).length).toBe(rows[0].n);
    expect(answers.filter((r) => r.status === 429).length).toBeGreaterThanOrEqual(20);
    // Spelling the address otherwise is the same address.
    const variant = await app.postForm('/auth/signin/email', { email: ' Victim@EXAMPLE.com ', callbackUrl: '/' });
    expect(variant.status).toBe(429);
  });
});

describe('X-Forwarded-For spoofing', () => {
  const flood = (app: LoopbackApp, forwardedFor: (i: number) => string) =>
    Promise.all(Array.from({ length: 12 }, (_, i) => guess(app, `user${i}`, 'x', { 'x-forwarded-for': forwardedFor(i) })));
  const rules = { credentialsClient: { points: 5, duration: 3600 } } as const;

  it('is ignored unless the host headers are trusted: a made-up address per request still counts as one client', async () => {
    const { provider, calls } = passwordProvider();
    const app = await serve({ providers: [provider], trustHost: false, throttle: { enabled: true, rules } }, { AUTH_URL: '{origin}/auth' });
    await flood(app, (i) => `198.51.100.${i}`);
    expect(calls.length).toBeLessThanOrEqual(5);
  });

  it('under trustHost only the last entry (the nearest proxy own) counts, so a forged prefix changes nothing', async () => {
    const { provider, calls } = passwordProvider();
    const app = await serve({ providers: [provider], throttle: { enabled: true, rules } });
    // The attacker writes any X-Forwarded-For; the proxy appends the address it saw.
    await flood(app, (i) => `198.51.100.${i}, 203.0.113.50`);
    expect(calls.length).toBeLessThanOrEqual(5);
  });

  it('counts IPv6 clients per /64: rotating the interface id does not help', async () => {
    const { provider, calls } = passwordProvider();
    const app = await serve({ providers: [provider], throttle: { enabled: true, rules } });
    await flood(app, (i) => `2001:db8:7:7:${i.toString(16)}::1`);
    expect(calls.length).toBeLessThanOrEqual(5);
  });
});

describe('ceilings per client', () => {
  it('caps every sign-in request of one client, whatever the provider or outcome', async () => {
    const { provider, calls } = passwordProvider();
    const app = await serve({ providers: [provider], throttle: { enabled: true, rules: { signIn: { points: 4, duration: 60 } } } });
    const answers: number[] = [];
    for (let i = 0; i < 6; i++) answers.push((await guess(app, 'ada', 'right-password')).status);
    expect(answers).toEqual([302, 302, 302, 302, 429, 429]);
    expect(calls).toHaveLength(4);
  });

  it('caps WebAuthn ceremonies a client starts: no challenge is made past the limit', async () => {
    const { Passkey } = await import('../../src/providers/webauthn.js');
    const app = await serve({
      adapter: pglite.adapter,
      experimental: { enableWebAuthn: true },
      providers: [Passkey()],
      logger: { warn: () => {} },
      throttle: { enabled: true, rules: { webauthnOptions: { points: 3, duration: 60 } } },
    });
    const statuses: number[] = [];
    let refusal: Response | undefined;
    for (let i = 0; i < 5; i++) {
      const res = await app.fetch('/auth/webauthn-options/passkey?action=authenticate');
      statuses.push(res.status);
      if (res.status === 429) refusal = res;
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    expect(refusal!.headers.get('set-cookie')).toBeNull();
    expect(((await refusal!.json()) as { error: string }).error).toBe('RateLimited');
  });
});

describe('behind a body parser (Express)', () => {
  it('still knows the client: a body read before authchart does not hide the socket address', async () => {
    const { createServer } = await import('node:http');
    const { ServerAuth } = await import('../../src/http/integrations/node.js');
    const { listenLoopback, closeHttpServer } = await import('../e2e/peers/net.js');
    const { provider, calls } = passwordProvider();
    const auth = ServerAuth({ secret: SECRET, trustHost: true, providers: [provider], logger: { error: () => {} }, throttle: { enabled: true, rules: { credentialsClient: { points: 4, duration: 3600 } } } } as AuthConfig);
    // What express.urlencoded() does: reads the stream, leaves the fields on req.body.
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (chunks.length) Object.assign(req, { body: Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString())) });
        void auth(req, res);
      });
    });
    const port = await listenLoopback(server);
    try {
      const origin = `http://127.0.0.1:${port}`;
      const csrf = await fetch(`${origin}/auth/csrf`);
      const { csrfToken } = (await csrf.json()) as { csrfToken: string };
      const cookie = csrf.headers.getSetCookie().map((c) => c.split(';', 1)[0]).join('; ');
      const statuses: number[] = [];
      for (let i = 0; i < 8; i++) {
        const res = await fetch(`${origin}/auth/callback/credentials`, {
          method: 'POST',
          redirect: 'manual',
          headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ csrfToken, username: `user${i}`, password: 'x' }).toString(),
        });
        statuses.push(res.status);
      }
      expect(calls).toHaveLength(4);
      expect(statuses.slice(4)).toEqual([429, 429, 429, 429]);
    } finally {
      await closeHttpServer(server);
    }
  });
});

describe('a runtime whose requests carry no address', () => {
  it('warns once, keeps the account limits, and takes the address from throttle.clientAddress when given', async () => {
    const { testAuth } = await import('../support/auth-app.js');
    const { provider, calls } = passwordProvider();
    const rules = { credentialsAccount: { points: 2, duration: 600 }, credentialsClient: { points: 3, duration: 600 } };
    const bare = testAuth({ providers: [provider], throttle: { enabled: true, rules } });
    const attempt = async (auth: typeof bare, username: string) => auth.client.post('/auth/callback/credentials', { csrfToken: await auth.csrfToken(), username, password: 'x' }, {});
    for (let i = 0; i < 3; i++) await attempt(bare, 'ada');
    expect(calls.filter((u) => u === 'ada')).toHaveLength(2);
    expect(bare.logger.warnings.filter((w) => w === 'throttle-no-client-address')).toEqual(['throttle-no-client-address']);

    calls.length = 0;
    const told = testAuth({ providers: [provider], throttle: { enabled: true, rules, clientAddress: () => '198.51.100.7' } });
    for (let i = 0; i < 5; i++) await attempt(told, `user${i}`);
    expect(calls).toHaveLength(3);
    expect(told.logger.warnings).not.toContain('throttle-no-client-address');
  });
});

describe('a shared store through node-redis', () => {
  it('counts guesses: a node-redis client is not taken for ioredis (which left the limits open)', async () => {
    const client = createClient({ url: REDIS_URL });
    client.on('error', () => {});
    await client.connect();
    try {
      const { provider, calls } = passwordProvider();
      const store = redisThrottleStore(client, { prefix: `authchart:test:${process.pid}:${Date.now()}:` });
      const app = await serve({ providers: [provider], throttle: { enabled: true, store } });
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => guess(app, 'ada', `guess-${i}`)));
      expect(calls.length).toBeLessThanOrEqual(10);
      expect(answers.filter((r) => r.status === 429).length).toBeGreaterThanOrEqual(10);
    } finally {
      await client.quit();
    }
  });
});
