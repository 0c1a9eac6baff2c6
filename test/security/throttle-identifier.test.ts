// Attacks on what the per-account password limit counts, over real HTTP from 127.0.0.1. `authorize` gets the whole
// body, so a limit keyed on any other field than the one `authorize` reads can be walked around: a decoy field that
// changes on every guess, the address sent as a JSON array or object, a repeated field, or spellings of one address
// that the app's lookup treats as the same account (case, spaces, full-width letters, invisible characters).
import { afterEach, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/core/config.js';
import type { AuthConfig } from '../../src/core/options.js';
import { Credentials } from '../../src/providers/credentials.js';
import { serveLoopback, type LoopbackApp } from '../support/loopback-app.js';

const SECRET = 'throttle-identifier-secret-0123456789abcdef';
const ADA = 'ada@example.com';
const apps: LoopbackApp[] = [];
afterEach(async () => {
  while (apps.length) await apps.pop()!.close();
});

/**
 * An app whose lookup is forgiving, as many are: it folds case, full-width letters and invisible characters before
 * it looks the address up. Every call that reaches ada's row is recorded, with what `authorize` was given.
 */
function forgivingProvider() {
  const seen: unknown[] = [];
  const forAda: unknown[] = [];
  const provider = Credentials({
    credentials: { email: { label: 'Email', type: 'email' }, password: { label: 'Password', type: 'password' } },
    authorize: async (c) => {
      seen.push(c.email);
      // The app's own (sloppy) lookup: String() of an array is its first element, of ' X ' is ' X '.
      const lookedUp = String(c.email).normalize('NFKC').toLowerCase().replace(/[\s\u200b-\u200d\u2060\ufeff\u00ad]/g, '');
      if (lookedUp === ADA) forAda.push(c.email);
      return lookedUp === ADA && c.password === 'right-password' ? { id: '1', email: ADA } : null;
    },
  });
  return { provider, seen, forAda };
}

async function serve(config: Omit<AuthConfig, 'secret'>): Promise<LoopbackApp> {
  const app = await serveLoopback({ secret: SECRET, trustHost: true, ...config } as AuthConfig);
  apps.push(app);
  return app;
}

/** A guess sent with a fresh CSRF pair, as a form (fields may repeat) or as JSON (values may be anything). */
async function send(app: LoopbackApp, body: { form: [string, string][] } | { json: Record<string, unknown> }): Promise<Response> {
  const { token, cookie } = await app.csrf();
  if ('form' in body) {
    const params = new URLSearchParams([['csrfToken', token], ...body.form]);
    return app.fetch('/auth/callback/credentials', { method: 'POST', cookie, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: params.toString() });
  }
  return app.fetch('/auth/callback/credentials', { method: 'POST', cookie, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ csrfToken: token, ...body.json }) });
}

// Spellings of ada's address the forgiving lookup above resolves to her row.
const SPELLINGS = [
  ADA,
  'ADA@EXAMPLE.COM',
  ' ada@example.com ',
  'Ada@Example.Com\t',
  '\uff41\uff44\uff41@example.com', // full-width "ａｄａ"
  'a\u200bda@example.com', // zero-width space
  'ad\u00ada@example.com', // soft hyphen
  '\u2060ada@example.com', // word joiner
  'ada@exampLe.com',
  'ada@example.com\u3000', // ideographic space
];

/** 40 guesses at ada, each dressed differently, with a decoy `username` that changes every time. */
function attacks(): ({ form: [string, string][] } | { json: Record<string, unknown> })[] {
  return Array.from({ length: 40 }, (_, i) => {
    const email = SPELLINGS[i % SPELLINGS.length]!;
    const decoy = `decoy-${i}`;
    switch (i % 5) {
      case 0:
        return { form: [['username', decoy], ['email', email], ['password', `guess-${i}`]] };
      case 1:
        return { json: { username: decoy, email, password: `guess-${i}` } };
      case 2:
        return { json: { identifier: decoy, email: [email], password: `guess-${i}` } };
      case 3:
        return { json: { login: decoy, email: { toString: email, 0: email }, password: `guess-${i}` } };
      default:
        return { form: [['user', decoy], ['email', email], ['email', `${decoy}@example.com`], ['password', `guess-${i}`]] };
    }
  });
}

describe('the per-account limit counts the identifier authorize gets', () => {
  it('lets at most the limit (10) of 40 dressed-up guesses at one account reach authorize', async () => {
    const { provider, forAda } = forgivingProvider();
    const app = await serve({ providers: [provider], throttle: { enabled: true } });
    const statuses: number[] = [];
    for (const attack of attacks()) statuses.push((await send(app, attack)).status);
    expect(forAda.length).toBeLessThanOrEqual(10);
    // Every guess either ran (a failed sign-in: 302 to the error page), was over the limit, or was malformed.
    expect(statuses.every((s) => s === 302 || s === 429 || s === 400)).toBe(true);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
    // Locked for ada in every spelling, the right password included.
    for (const email of SPELLINGS) {
      const res = await send(app, { form: [['email', email], ['password', 'right-password']] });
      expect(res.status).toBe(429);
    }
    expect(forAda.length).toBeLessThanOrEqual(10);
  });

  it('also holds when the guesses arrive at once', async () => {
    const { provider, forAda } = forgivingProvider();
    const app = await serve({ providers: [provider], throttle: { enabled: true } });
    const statuses = await Promise.all(attacks().map((a) => send(app, a).then((r) => r.status)));
    expect(forAda.length).toBeLessThanOrEqual(10);
    expect(statuses).not.toContain(500);
  });
});

describe('an identifier that is not one string is refused before authorize', () => {
  const malformed: [string, { form: [string, string][] } | { json: Record<string, unknown> }][] = [
    ['a JSON array', { json: { email: [ADA], password: 'x' } }],
    ['a JSON array of two', { json: { email: [ADA, 'eve@example.com'], password: 'x' } }],
    ['a JSON object', { json: { email: { address: ADA }, password: 'x' } }],
    ['a JSON number', { json: { email: 42, password: 'x' } }],
    ['JSON true', { json: { email: true, password: 'x' } }],
    ['JSON null', { json: { email: null, password: 'x' } }],
    ['a missing field, a decoy present', { json: { username: ADA, password: 'x' } }],
    ['an empty field', { form: [['email', ''], ['password', 'x']] }],
    ['only spaces and invisible characters', { form: [['email', ' \u3000 '], ['password', 'x']] }],
    ['a repeated field', { form: [['email', ADA], ['email', 'eve@example.com'], ['password', 'x']] }],
    ['an over-long field', { form: [['email', `${'a'.repeat(400)}@example.com`], ['password', 'x']] }],
  ];

  for (const throttled of [true, false]) {
    for (const [name, body] of malformed) {
      it(`${name} (throttle ${throttled ? 'on' : 'off'}): 400 InvalidRequest, authorize never called`, async () => {
        const { provider, seen } = forgivingProvider();
        const app = await serve({ providers: [provider], throttle: { enabled: throttled } });
        const res = await send(app, body);
        expect(res.status).toBe(400);
        expect(((await res.json()) as { error: string }).error).toBe('InvalidRequest');
        expect(seen).toEqual([]);
      });
    }
  }
});

describe('what authorize gets', () => {
  it('the identifier NFKC-normalised and trimmed, the other fields as sent', async () => {
    const got: Record<string, unknown>[] = [];
    const provider = Credentials({
      credentials: { email: {}, password: { type: 'password' } },
      authorize: async (c) => (got.push(c), null),
    });
    const app = await serve({ providers: [provider], throttle: { enabled: true } });
    await send(app, { form: [['email', '  \uff21da@Example.com '], ['password', ' p\uff41ss '], ['extra', 'kept']] });
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({ email: 'Ada@Example.com', password: ' p\uff41ss ', extra: 'kept' });
  });

  it('the field `identifier` names, over the first declared one', async () => {
    const got: Record<string, unknown>[] = [];
    const provider = Credentials({ identifier: 'login', credentials: { tenant: {}, password: { type: 'password' } }, authorize: async (c) => (got.push(c), null) });
    const app = await serve({ providers: [provider], throttle: { enabled: true, rules: { credentialsAccount: { points: 2, duration: 600 } } } });
    for (const tenant of ['t1', 't2', 't3', 't4']) await send(app, { form: [['tenant', tenant], ['login', 'ADA'], ['password', 'x']] });
    expect(got).toHaveLength(2);
    expect((await send(app, { form: [['tenant', 't1'], ['password', 'x']] })).status).toBe(400);
  });
});

describe('configuration', () => {
  const config = (provider: ReturnType<typeof Credentials>, production: boolean) =>
    resolveConfig({ secret: SECRET, trustHost: true, providers: [provider] }, { env: production ? { NODE_ENV: 'production' } : {} });

  it('with throttling on, a provider that names no account field is refused at start', () => {
    const bare = Credentials({ authorize: async () => null });
    expect(() => config(bare, true)).toThrow(/names no field for the account/);
    expect(() => config(bare, false)).not.toThrow();
    expect(() => config(Credentials({ identifier: 'email', authorize: async () => null }), true)).not.toThrow();
    expect(() => config(Credentials({ identifier: false, authorize: async () => null }), true)).not.toThrow();
    expect(() => config(Credentials({ identifier: '' as never, authorize: async () => null }), false)).toThrow(/must be a field name/);
  });
});
