// Attacks on password recovery, over real HTTP from 127.0.0.1 against the real PostgreSQL (also the flow store that
// keeps the reset entries): a reset link used twice, two uses of one link at once, a token aimed at another account,
// telling known from unknown addresses by the answer or its timing, passwords made to hurt (200 KB, NUL, a lone
// surrogate), the limits per address and per client, and an outage of the store while a token is taken.
import { randomUUID } from 'node:crypto';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PostgresAdapter, type PostgresAdapterInstance } from '../../src/adapters/postgres/index.js';
import type { AuthConfig } from '../../src/core/options.js';
import { argon2id, hashNewPassword, Password, type PasswordMail } from '../../src/providers/password/index.js';
import { readForms } from '../e2e/peers/html-form.js';
import { serveLoopback, type LoopbackApp } from '../support/loopback-app.js';
import { useSharedStores } from '../support/shared-stores.js';

const SECRET = 'password-recovery-secret-0123456789abcdef';
const OLD = 'old horse battery staple';
const hasher = argon2id({ memoryCost: 1024, timeCost: 1 });

const stores = useSharedStores();
let adapter: PostgresAdapterInstance;
beforeAll(async () => {
  adapter = PostgresAdapter(stores.pool(await stores.schema(), { max: 8 }));
});

const apps: LoopbackApp[] = [];
afterEach(async () => {
  while (apps.length) await apps.pop()!.close();
});

let outbox: PasswordMail[] = [];
async function serve(config: Partial<AuthConfig> = {}, send?: (mail: PasswordMail) => Promise<void>): Promise<LoopbackApp> {
  outbox = [];
  const mail = { send: send ?? (async (m: PasswordMail) => void outbox.push(m)) };
  const app = await serveLoopback({ secret: SECRET, trustHost: true, adapter, providers: [Password({ hasher, mail })], session: { strategy: 'database' }, throttle: { enabled: false }, logger: { error: () => {}, warn: () => {}, debug: () => {} }, ...config } as AuthConfig);
  apps.push(app);
  return app;
}

async function account(): Promise<{ id: string; email: string }> {
  const email = `kim-${randomUUID()}@example.com`;
  const { id } = await adapter.createUser({ id: randomUUID(), email, emailVerified: null });
  await adapter.setPasswordHash(id, await hashNewPassword(OLD, { hasher }));
  return { id, email };
}

/** A browser: keeps its cookies, posts the recovery forms with its CSRF token. */
function browser(app: LoopbackApp) {
  const jar = new Map<string, string>();
  const keep = (res: Response) => {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      const name = pair!.slice(0, at);
      if (/max-age=0/i.test(line)) jar.delete(name);
      else jar.set(name, pair!.slice(at + 1));
    }
    return res;
  };
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  let csrf: string | undefined;
  return {
    async get(path: string): Promise<Response> {
      return keep(await app.fetch(path, { cookie: cookie() }));
    },
    /** `json`: the body as JSON, which (unlike a form's UTF-8) can carry a lone surrogate, escaped. */
    async post(fields: Record<string, string>, headers: Record<string, string> = {}, json = false): Promise<Response> {
      if (!csrf) {
        const pair = await app.csrf(headers);
        csrf = pair.token;
        for (const part of pair.cookie.split('; ')) jar.set(part.slice(0, part.indexOf('=')), part.slice(part.indexOf('=') + 1));
      }
      const body = json ? JSON.stringify({ csrfToken: csrf, ...fields }) : new URLSearchParams({ csrfToken: csrf, ...fields });
      const type = json ? 'application/json' : 'application/x-www-form-urlencoded';
      return keep(await app.fetch('/auth/recover/password', { method: 'POST', cookie: cookie(), headers: { 'content-type': type, ...headers }, body }));
    },
  };
}

async function mailTo(email: string): Promise<PasswordMail> {
  for (let i = 0; i < 200; i++) {
    const found = outbox.findLast((m) => m.to === email && m.kind === 'reset');
    if (found) return found;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`no mail to ${email}`);
}

const verifies = async (id: string, password: string) => hasher.verify((await adapter.getPasswordHash(id))!, password);
const DEAD = 'This link or code is used, expired or no longer valid.';

describe('reset tokens', () => {
  it('a link works once: a second browser that opened it before the reset cannot set another password', async () => {
    const app = await serve();
    const kim = await account();
    await browser(app).post({ email: kim.email });
    const { url } = await mailTo(kim.email);
    const path = new URL(url).pathname + new URL(url).search;
    const first = browser(app);
    const second = browser(app);
    expect((await first.get(path)).status).toBe(200);
    expect((await second.get(path)).status).toBe(200);
    expect((await first.post({ password: 'first new password' })).status).toBe(302);
    const late = await second.post({ password: 'attacker password' });
    expect(late.status).toBe(200);
    expect(await late.text()).toContain(DEAD);
    const reopened = await browser(app).get(path);
    expect(await reopened.text()).toContain(DEAD);
    expect(await verifies(kim.id, 'first new password')).toBe(true);
  });

  it('of two uses of one link at the same moment, exactly one sets the password', async () => {
    const app = await serve();
    const kim = await account();
    await browser(app).post({ email: kim.email });
    const { url } = await mailTo(kim.email);
    const path = new URL(url).pathname + new URL(url).search;
    const browsers = Array.from({ length: 6 }, () => browser(app));
    for (const b of browsers) expect((await b.get(path)).status).toBe(200);
    const answers = await Promise.all(browsers.map((b, i) => b.post({ password: `racing password ${i}` })));
    const winners = answers.flatMap((res, i) => (res.status === 302 ? [i] : []));
    expect(winners).toHaveLength(1);
    expect(answers.filter((res) => res.status === 200)).toHaveLength(5);
    expect(await verifies(kim.id, `racing password ${winners[0]}`)).toBe(true);
  });

  it('a token names its own account only: an address added to the link, or a code typed for another request, changes nobody else', async () => {
    const app = await serve();
    const mallory = await account();
    const victim = await account();
    await browser(app).post({ email: mallory.email });
    const { url, code } = await mailTo(mallory.email);
    const aimed = new URL(url);
    aimed.searchParams.set('email', victim.email);
    aimed.searchParams.set('userId', victim.id);
    const b = browser(app);
    expect((await b.get(aimed.pathname + aimed.search)).status).toBe(200);
    expect((await b.post({ password: 'mallory new password' })).status).toBe(302);
    expect(await verifies(victim.id, OLD)).toBe(true);
    expect(await verifies(mallory.id, 'mallory new password')).toBe(true);

    // Mallory's code, typed on the page of a request for the victim's address.
    await browser(app).post({ email: mallory.email }).catch(() => undefined);
    const victimPage = browser(app);
    await victimPage.post({ email: victim.email });
    const typed = await victimPage.post({ code: code! });
    expect(await typed.text()).toContain('tries left');
    expect(await verifies(victim.id, OLD)).toBe(true);
  });
});

describe('enumeration', () => {
  const normalise = (html: string, email: string) => html.replaceAll(email, 'ADDRESS').replace(/name="csrfToken" value="[^"]+"/g, '').replace(/nonce="[^"]+"/g, '').replace(/'nonce-[^']+'/g, '');

  it('a known and an unknown address get the same answer: status, page and cookies', async () => {
    const app = await serve();
    const kim = await account();
    const nobody = `nobody-${randomUUID()}@example.com`;
    const known = await browser(app).post({ email: kim.email });
    const unknown = await browser(app).post({ email: nobody });
    expect(known.status).toBe(unknown.status);
    expect(normalise(await known.text(), kim.email)).toBe(normalise(await unknown.text(), nobody));
    const names = (res: Response) => res.headers.getSetCookie().map((l) => l.split('=')[0]).sort();
    expect(names(known)).toEqual(names(unknown));
    await mailTo(kim.email);
    expect(outbox.filter((m) => m.to === nobody)).toEqual([]);
  });

  it('a known and an unknown address take the same time over HTTP, even when the mail is slow', async () => {
    // A mail server that takes 150 ms: an answer that waited for it would show the account.
    const app = await serve({}, async (m) => {
      await new Promise((r) => setTimeout(r, 150));
      outbox.push(m);
    });
    const kim = await account();
    const time = async (email: string) => {
      const started = performance.now();
      const res = await browser(app).post({ email });
      await res.arrayBuffer();
      return performance.now() - started;
    };
    const pair = async (i: number) => {
      const known = () => time(kim.email);
      const unknown = () => time(`nobody-${i}-${randomUUID()}@example.com`);
      const [x, y] = i % 2 === 0 ? await Promise.all([known(), unknown()]) : (await Promise.all([unknown(), known()])).reverse();
      return x! - y!;
    };
    for (let i = 0; i < 3; i++) await pair(i);
    const differences: number[] = [];
    // The address's cooldown would refuse a second mail within a minute: each known request uses its own account.
    for (let i = 0; i < 30; i++) {
      kim.email = (await account()).email;
      differences.push(await pair(i));
    }
    const median = [...differences].sort((a, b) => a - b)[15]!;
    console.log(`password recovery timing (ms): known minus unknown, median of 30 pairs ${median.toFixed(1)}`);
    expect(Math.abs(median)).toBeLessThan(20);
  }, 60_000);
});

describe('passwords made to hurt', () => {
  it('a 200 KB password is refused unread; 60 KB, a NUL and a lone surrogate beside the field; the link still works', async () => {
    const app = await serve();
    const kim = await account();
    await browser(app).post({ email: kim.email });
    const { url } = await mailTo(kim.email);
    const b = browser(app);
    await b.get(new URL(url).pathname + new URL(url).search);
    // 200 KB is over every form's body limit: refused (413) before the flow runs, so nothing is spent.
    expect((await b.post({ password: 'x'.repeat(200 * 1024) })).status).toBe(413);
    for (const [password, says] of [
      ['x'.repeat(60 * 1024), 'Use at most 128 characters.'],
      ['nul\0in the middle', 'cannot be used'],
      ['lone \uD800 surrogate', 'cannot be used'],
    ] as const) {
      const res = await b.post({ password }, {}, true);
      expect(res.status, password.slice(0, 20)).toBe(400);
      const html = await res.text();
      expect(html).toContain(says);
      expect(html).toContain('class="field-error"');
      expect(html).not.toContain(password.slice(0, 50));
    }
    expect(await verifies(kim.id, OLD)).toBe(true);
    expect((await b.post({ password: 'a fine new password' })).status).toBe(302);
    expect(await verifies(kim.id, 'a fine new password')).toBe(true);
  });

  it('the same passwords as JSON get a typed answer, never a 500', async () => {
    const app = await serve();
    for (const password of ['x'.repeat(200 * 1024), 'nul\0', '\uDC00']) {
      const { token, cookie } = await app.csrf();
      const res = await app.fetch('/auth/recover/password', { method: 'POST', cookie, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ csrfToken: token, password }) });
      expect(res.status).toBeLessThan(500);
    }
  });
});

describe('limits', () => {
  it('one address gets a bounded number of requests, whatever its spelling and whoever asks', async () => {
    const app = await serve({ throttle: { enabled: true } });
    const kim = await account();
    const spellings = [kim.email, kim.email.toUpperCase(), ` ${kim.email} `];
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) statuses.push((await browser(app).post({ email: spellings[i % 3]! }, { 'x-forwarded-for': `10.0.0.${i}` })).status);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(15);
  });

  it('one client gets a bounded number of requests, whatever addresses it names', async () => {
    const app = await serve({ throttle: { enabled: true } });
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) statuses.push((await browser(app).post({ email: `probe-${i}-${randomUUID()}@example.com` })).status);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(10);
  });
});

describe('outages', () => {
  it('a store that fails while the token is taken answers 503 and spends nothing: the link works once it is back', async () => {
    let down = false;
    const flaky = new Proxy(adapter, {
      get(target, name: string) {
        const value = (target as unknown as Record<string, unknown>)[name];
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (down && (name === 'takeFlowValue' || name === 'getPasswordHash')) return Promise.reject(Object.assign(new Error('connect ECONNREFUSED (injected)'), { code: 'ECONNREFUSED' }));
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const app = await serve({ adapter: flaky });
    const kim = await account();
    await browser(app).post({ email: kim.email });
    const { url } = await mailTo(kim.email);
    const b = browser(app);
    await b.get(new URL(url).pathname + new URL(url).search);
    down = true;
    const during = await b.post({ password: 'set during the outage' });
    const location = during.headers.get('location') ?? '';
    expect(location).toContain('error=ServiceUnavailable');
    expect((await app.fetch(new URL(location).pathname + new URL(location).search)).status).toBe(503);
    down = false;
    expect(await verifies(kim.id, OLD)).toBe(true);
    // Nothing spent: the same browser sends the same password again and it is set.
    const after = await b.post({ password: 'set after the outage' });
    expect(after.status).toBe(302);
    expect(await verifies(kim.id, 'set after the outage')).toBe(true);
  });

  it('a database that fails after the take puts the entry back: the link still works', async () => {
    let down = false;
    const flaky = { ...adapter, setPasswordHash: (...args: Parameters<PostgresAdapterInstance['setPasswordHash']>) => (down ? Promise.reject(Object.assign(new Error('connect ECONNREFUSED (injected)'), { code: 'ECONNREFUSED' })) : adapter.setPasswordHash(...args)) };
    const app = await serve({ adapter: flaky as PostgresAdapterInstance });
    const kim = await account();
    await browser(app).post({ email: kim.email });
    const { url } = await mailTo(kim.email);
    const path = new URL(url).pathname + new URL(url).search;
    const b = browser(app);
    await b.get(path);
    down = true;
    expect((await b.post({ password: 'set during the outage' })).headers.get('location')).toContain('error=ServiceUnavailable');
    down = false;
    expect(await verifies(kim.id, OLD)).toBe(true);
    const again = browser(app);
    const form = await again.get(path);
    expect(await form.text()).toContain('autocomplete="new-password"');
    expect((await again.post({ password: 'set after the outage' })).status).toBe(302);
    expect(await verifies(kim.id, 'set after the outage')).toBe(true);
  });
});
