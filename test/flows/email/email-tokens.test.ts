// The e-mail flow's tokens and options through the HTTP layer: hashing at rest, secret rotation, the provider's
// own secret, custom token generators and normalisers, what the sender receives, and where the raw token goes.
import { describe, expect, it, vi } from 'vitest';
import type { AuthConfig } from '../../../src/core/options.js';
import { hashToken } from '../../../src/flows/email/steps.js';
import { Email, type EmailUserConfig, type SendVerificationRequestParams } from '../../../src/providers/email.js';
import { readForms } from '../../e2e/peers/html-form.js';
import { ORIGIN, TEST_SECRET, testAuth, type TestAuth } from '../../support/auth-app.js';
import { useMigratedPGlite } from '../../support/pglite.js';
import type { ClientResponse, TestClient } from '../../support/client.js';

/** The Email provider's flow cookie (one per provider: `authchart.flow.<provider id>`). */
const EMAIL_FLOW_COOKIE = 'authchart.flow.email';
const OLD_SECRET = 'an-older-secret-that-is-also-long-enough-0123';
const NEW_SECRET = 'the-newest-secret-which-is-long-enough-987654';

const pg = useMigratedPGlite();
const outbox: SendVerificationRequestParams[] = [];


function app(options: EmailUserConfig = {}, config: Partial<AuthConfig> = {}): TestAuth {
  const provider = Email({ sendVerificationRequest: (params) => void outbox.push(params), ...options });
  return testAuth({ providers: [provider], adapter: pg.adapter, ...config });
}

async function request(t: TestAuth, email: string, client: TestClient = t.client): Promise<ClientResponse> {
  const csrfToken = await t.csrfToken(client);
  return client.post('/auth/signin/email', { csrfToken, email, callbackUrl: '/dashboard' });
}

async function linkFor(t: TestAuth, email: string): Promise<string> {
  const res = await request(t, email);
  expect(res.location?.href).toBe(`${ORIGIN}/auth/verify-request?provider=email&type=email`);
  const sent = outbox.filter((m) => m.identifier === email).at(-1);
  if (!sent) throw new Error(`nothing sent to ${email}`);
  return sent.url;
}

async function confirm(client: TestClient, link: string): Promise<ClientResponse> {
  const page = await client.get(link);
  const [form] = readForms(await page.text());
  return client.post(new URL(form.action, page.requestUrl), form.fields);
}

async function storedTokens(email: string): Promise<string[]> {
  const { rows } = await pg.db.query<{ token: string }>('SELECT token FROM verification_token WHERE identifier = $1', [email]);
  return rows.map((r) => r.token);
}

describe('e-mail tokens', () => {
  it('hands the sender the link, the address, the expiry and the resolved provider', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(new Date('2031-05-06T07:08:09Z'));
      const t = app({ maxAge: 3600, from: 'Team <team@example.test>' }, { theme: { brandColor: '#123456' } });
      const link = await linkFor(t, 'sender@example.test');
      const sent = outbox.at(-1)!;
      expect(sent.url).toBe(link);
      expect(sent.expires.toISOString()).toBe('2031-05-06T08:08:09.000Z');
      expect(sent.provider).toMatchObject({ id: 'email', from: 'Team <team@example.test>', maxAge: 3600 });
      expect(sent.theme).toEqual({ brandColor: '#123456' });
      expect(sent.request).toBeInstanceOf(Request);
      const url = new URL(link);
      expect([...url.searchParams.keys()]).toEqual(['callbackUrl', 'token', 'email']);
      expect(url.searchParams.get('token')).toBe(sent.token);
      expect(url.searchParams.get('callbackUrl')).toBe(`${ORIGIN}/dashboard`);
      const { rows } = await pg.db.query<{ expires: Date }>('SELECT expires FROM verification_token WHERE identifier = $1', ['sender@example.test']);
      expect(rows[0].expires.toISOString()).toBe('2031-05-06T08:08:09.000Z');
    } finally {
      vi.useRealTimers();
    }
  });

  it('stores only an HMAC of the token, keyed with the first secret', async () => {
    const t = app();
    const token = new URL(await linkFor(t, 'hashed@example.test')).searchParams.get('token')!;
    expect(await storedTokens('hashed@example.test')).toEqual([hashToken(token, TEST_SECRET)]);
    expect(hashToken(token, TEST_SECRET)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashToken(token, TEST_SECRET)).not.toBe(hashToken(token, OLD_SECRET));
  });

  it('keeps pending links valid when a new secret is put first, and hashes new tokens with it', async () => {
    const before = app({}, { secret: OLD_SECRET });
    const pending = await linkFor(before, 'rotate@example.test');

    const rotated = app({}, { secret: [NEW_SECRET, OLD_SECRET] });
    const fresh = await linkFor(rotated, 'rotate2@example.test');
    const freshToken = new URL(fresh).searchParams.get('token')!;
    expect(await storedTokens('rotate2@example.test')).toEqual([hashToken(freshToken, NEW_SECRET)]);

    expect((await confirm(rotated.client, pending)).location?.href).toBe(`${ORIGIN}/dashboard`);
    expect((await confirm(rotated.newClient(), fresh)).location?.href).toBe(`${ORIGIN}/dashboard`);
  });

  it('refuses a link once its secret is retired', async () => {
    const before = app({}, { secret: OLD_SECRET });
    const link = await linkFor(before, 'retired@example.test');
    const after = app({}, { secret: NEW_SECRET });
    // Refused as soon as it is opened: no stored token matches under the secrets in use.
    expect((await after.client.get(link)).location?.href).toBe(`${ORIGIN}/auth/error?error=Verification`);
    expect(await storedTokens('retired@example.test')).toHaveLength(1);
  });

  it("hashes with the provider's own secret when it has one", async () => {
    const own = 'provider-only-secret-long-enough-0123456789';
    const t = app({ secret: own });
    const link = await linkFor(t, 'own@example.test');
    const token = new URL(link).searchParams.get('token')!;
    expect(await storedTokens('own@example.test')).toEqual([hashToken(token, own)]);
    expect((await confirm(t.client, link)).location?.href).toBe(`${ORIGIN}/dashboard`);
  });

  it('uses generateVerificationToken, and reports a generator that returns nothing as a server problem', async () => {
    let n = 0;
    const t = app({ generateVerificationToken: () => `custom-${++n}` });
    const link = await linkFor(t, 'custom@example.test');
    expect(new URL(link).searchParams.get('token')).toBe('custom-1');
    expect((await confirm(t.client, link)).location?.href).toBe(`${ORIGIN}/dashboard`);

    const broken = app({ generateVerificationToken: () => '' });
    const sentBefore = outbox.length;
    const res = await request(broken, 'broken@example.test');
    expect(res.location?.href).toBe(`${ORIGIN}/auth/error?error=Configuration`);
    expect(outbox.length).toBe(sentBefore);
    expect(await storedTokens('broken@example.test')).toEqual([]);
    expect(broken.logger.errorTypes()).toEqual(['CallbackRouteError']);
  });

  it('uses a custom normalizeIdentifier, and turns its refusal into EmailSignInError', async () => {
    const t = app({ normalizeIdentifier: (raw) => {
      const [local, domain] = raw.trim().toLowerCase().split('@');
      if (domain !== 'corp.test') throw new Error('only corp.test addresses');
      return `${local.split('+')[0]}@${domain}`;
    } });
    const link = await linkFor(t, 'dev@corp.test');
    expect(outbox.at(-1)!.identifier).toBe('dev@corp.test');
    const viaTag = await request(t, 'Dev+Tag@corp.test');
    expect(viaTag.status).toBe(302);
    expect(outbox.at(-1)!.identifier).toBe('dev@corp.test');
    expect((await confirm(t.client, link)).location?.href).toBe(`${ORIGIN}/dashboard`);

    const refused = await request(t, 'dev@elsewhere.test');
    expect(refused.location?.href).toBe(`${ORIGIN}/auth/signin?error=EmailSignInError`);
    expect(t.logger.errors.at(-1)?.message).toBe('only corp.test addresses');
  });

  it('needs the CSRF token to send a link', async () => {
    const t = app();
    await t.csrfToken();
    const sentBefore = outbox.length;
    const res = await t.client.post('/auth/signin/email', { csrfToken: 'nope', email: 'forged@example.test' });
    expect(res.location?.href).toBe(`${ORIGIN}/auth/signin?error=MissingCSRF`);
    expect(outbox.length).toBe(sentBefore);
    expect(await storedTokens('forged@example.test')).toEqual([]);
  });

  it('keeps the raw token out of the confirmation page, and seals it in the flow cookie', async () => {
    const t = app();
    const link = await linkFor(t, 'sealed@example.test');
    const token = new URL(link).searchParams.get('token')!;
    const page = await t.client.get(link);
    expect(await page.text()).not.toContain(token);
    const flow = t.client.cookies.get(EMAIL_FLOW_COOKIE);
    expect(flow).toBeDefined();
    expect(flow).not.toContain(token);
    expect(flow!.split('.')).toHaveLength(5); // a compact JWE
  });

  it('refuses a tampered flow cookie without signing in', async () => {
    const t = app();
    const link = await linkFor(t, 'tamper@example.test');
    const page = await t.client.get(link);
    const [form] = readForms(await page.text());
    const flow = t.client.cookies.get(EMAIL_FLOW_COOKIE)!;
    t.client.cookies.set(EMAIL_FLOW_COOKIE, `${flow.slice(0, -4)}AAAA`, ORIGIN, { path: '/' });
    const res = await t.client.post(new URL(form.action, page.requestUrl), form.fields);
    expect(res.location?.href).toBe(`${ORIGIN}/auth/error?error=Configuration`);
    expect(res.setCookie.some((l) => l.startsWith('authchart.session-token=') && !/max-age=0/i.test(l))).toBe(false);
    expect(t.logger.errorTypes()).toEqual(['InvalidCheck']);
    expect(await storedTokens('tamper@example.test')).toHaveLength(1);
  });
});
