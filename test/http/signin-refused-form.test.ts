// A browser's sign-in form the server refuses (a field missing, a field malformed, an address that is not one) comes
// back as the sign-in page, 400, with the error right under the field and what was typed kept: never raw JSON.
// Scripts and the browser clients keep their JSON answers.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Email, type SendVerificationRequestParams } from '../../src/providers/email.js';
import { testAuth, type TestAuth } from '../support/auth-app.js';
import { useMigratedPGlite } from '../support/pglite.js';
import { ADA, adaProvider } from './helpers.js';

const BROWSER = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };
const pg = useMigratedPGlite();
const outbox: SendVerificationRequestParams[] = [];
afterEach(() => void (outbox.length = 0));

/** The input named `name` and what follows it up to the end of its field's wrapper. */
function fieldOf(page: string, name: string): { input: string; after: string } {
  const m = new RegExp(`(<input [^>]*name="${name}"[^>]*>)(.*?)</div>`, 's').exec(page);
  if (!m) throw new Error(`no input named ${name}`);
  return { input: m[1], after: m[2] };
}

async function expectPageWithFieldError(res: Response, field: string, message: string): Promise<string> {
  expect(res.status).toBe(400);
  expect(res.headers.get('content-type')).toContain('text/html');
  const page = await res.text();
  expect(page.trimStart().startsWith('<!doctype html>')).toBe(true);
  const { input, after } = fieldOf(page, field);
  const id = /id="([^"]+)"/.exec(input)![1];
  expect(input).toContain('aria-invalid="true"');
  expect(input).toContain(`aria-describedby="${id}-error"`);
  // The sentence is the next thing after its input, inside the same field.
  expect(after.trim()).toBe(`<p class="field-error" id="${id}-error">${message}</p>`);
  expect(page.match(/class="field-error"/g)).toHaveLength(1);
  return page;
}

describe('a refused credentials form', () => {
  function app() {
    const authorize = vi.fn(async (c: Partial<Record<string, unknown>>) => (c.email === ADA.email && c.password === 'x' ? { ...ADA } : null));
    return { t: testAuth({ providers: [adaProvider({ authorize })] }), authorize };
  }
  const post = async (t: TestAuth, form: Record<string, string>, headers: Record<string, string> = BROWSER) =>
    t.client.post('/auth/callback/credentials', { csrfToken: await t.csrfToken(), callbackUrl: '/dashboard', ...form }, { headers });

  it('a missing password: the page, the error under the password, the address kept; authorize never runs', async () => {
    const { t, authorize } = app();
    const page = await expectPageWithFieldError(await post(t, { email: 'ada@example.com', password: '' }), 'password', 'Fill in this field.');
    expect(fieldOf(page, 'email').input).toContain('value="ada@example.com"');
    expect(fieldOf(page, 'password').input).not.toContain('value=');
    expect(authorize).not.toHaveBeenCalled();
  });

  it('a field left out of the post altogether, and an over-long (malformed) identifier: the error under that field', async () => {
    const { t, authorize } = app();
    await expectPageWithFieldError(await post(t, { password: 'x' }), 'email', 'Fill in this field.');
    const long = `${'a'.repeat(400)}@example.com`;
    const page = await expectPageWithFieldError(await post(t, { email: long, password: 'x' }), 'email', 'Check this and try again.');
    expect(fieldOf(page, 'email').input).toContain(`value="${long}"`);
    expect(authorize).not.toHaveBeenCalled();
  });

  it('in the reader\'s language, and escaped', async () => {
    const { t } = app();
    const page = await expectPageWithFieldError(await post(t, { email: '"><b>x', password: '' }, { ...BROWSER, 'accept-language': 'ja' }), 'password', 'この項目を入力してください。');
    expect(page).toContain('<html lang="ja"');
    expect(page).not.toContain('"><b>x');
  });

  it('a client that asks for no page keeps its JSON 400; a forged form gets no page', async () => {
    const { t } = app();
    const res = await post(t, { password: 'x' }, {});
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'InvalidRequest' });
    const forged = await t.client.post('/auth/callback/credentials', { csrfToken: 'forged', password: '' }, { headers: BROWSER });
    expect(forged.status).not.toBe(400);
    expect(await forged.text()).not.toContain('field-error');
  });
});

describe('a refused e-mail address', () => {
  function app() {
    return testAuth({ providers: [Email({ sendVerificationRequest: (params) => void outbox.push(params) })], adapter: pg.adapter });
  }
  const post = async (t: TestAuth, email: string, headers: Record<string, string> = BROWSER) =>
    t.client.post('/auth/signin/email', { csrfToken: await t.csrfToken(), callbackUrl: '/dashboard', email }, { headers });

  it('not an address: the page, the error under the address field, what was typed kept, nothing sent', async () => {
    const t = app();
    for (const typed of ['ada at example', 'ada@', '']) {
      const page = await expectPageWithFieldError(await post(t, typed), 'email', 'Enter an e-mail address such as name@example.com.');
      if (typed) expect(fieldOf(page, 'email').input).toContain(`value="${typed}"`);
      expect(page).not.toContain('role="alert"');
    }
    expect(outbox).toHaveLength(0);
  });

  it('a good address still goes on to "check your e-mail"; a script still gets no page', async () => {
    const t = app();
    const sent = await post(t, 'ada@example.com');
    expect(sent.status).toBe(302);
    expect(outbox).toHaveLength(1);
    const script = await post(t, 'ada at example', {});
    expect(script.headers.get('content-type') ?? '').not.toContain('text/html');
  });
});
