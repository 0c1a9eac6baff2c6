// The HTTP API e-mail senders end to end: the real sign-in route (POST {basePath}/signin/<id> with CSRF), the real
// PostgreSQL schema on embedded PGlite, and a local fake of each vendor's API. The link arrives at the fake, opening
// and confirming it signs in; a vendor refusal ends in EmailSignInError with the vendor's message logged and no
// token left in the database.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { EmailConfig } from '../../src/providers/email.js';
import { EmailApiError, ForwardEmail, Loops, Mailgun, Postmark, Resend, SendGrid, type EmailApiOptions } from '../../src/providers/index.js';
import { ORIGIN, testAuth, type TestAuth } from '../support/auth-app.js';
import { useMigratedPGlite } from '../support/pglite.js';
import type { ClientResponse, TestClient } from '../support/client.js';
import { readForms } from './peers/html-form.js';
import { startMailApiFake, type ApiAnswer, type MailApiFake, type ReceivedApiRequest } from './peers/mail-api.js';

const FROM = 'authchart tests <no-reply@mail.example.test>';
const SESSION_COOKIE = 'authchart.session-token';
const pg = useMigratedPGlite();
let api: MailApiFake;

interface VendorCase {
  id: string;
  make: (o: EmailApiOptions) => EmailConfig;
  /** The link as the vendor received it (the text part, or Loops' `url` variable). */
  link: (req: ReceivedApiRequest) => string;
  ok: ApiAnswer;
  refusal: ApiAnswer;
  message: string;
}

const vendors: VendorCase[] = [
  {
    id: 'resend',
    make: Resend,
    link: (r) => r.json.text,
    ok: { status: 200, body: { id: 're-1' } },
    refusal: { status: 403, body: { statusCode: 403, name: 'validation_error', message: 'The mail.example.test domain is not verified.' } },
    message: 'The mail.example.test domain is not verified.',
  },
  {
    id: 'sendgrid',
    make: SendGrid,
    link: (r) => r.json.content[0].value,
    ok: { status: 202 },
    refusal: { status: 401, body: { errors: [{ message: 'The provided authorization grant is invalid, expired, or revoked', field: null, help: null }] } },
    message: 'The provided authorization grant is invalid, expired, or revoked',
  },
  {
    id: 'postmark',
    make: Postmark,
    link: (r) => r.json.TextBody,
    ok: { status: 200, body: { To: 'x', SubmittedAt: '2026-01-15T12:00:00Z', MessageID: 'pm-1', ErrorCode: 0, Message: 'OK' } },
    refusal: { status: 422, body: { ErrorCode: 406, Message: 'You tried to send to recipient(s) that have been marked as inactive.' } },
    message: 'ErrorCode 406: You tried to send to recipient(s) that have been marked as inactive.',
  },
  {
    id: 'mailgun',
    make: Mailgun,
    link: (r) => r.form!.text,
    ok: { status: 200, body: { id: '<1@mail.example.test>', message: 'Queued. Thank you.' } },
    refusal: { status: 400, body: { message: 'Domain mail.example.test is not allowed to send: Free accounts are for test purposes only.' } },
    message: 'Domain mail.example.test is not allowed to send: Free accounts are for test purposes only.',
  },
  {
    id: 'forwardemail',
    make: ForwardEmail,
    link: (r) => r.json.text,
    ok: { status: 200, body: { id: 'fe-1', object: 'email', status: 'queued' } },
    refusal: { status: 429, body: { statusCode: 429, error: 'Too Many Requests', message: 'You have exceeded your daily SMTP outbound limit.' } },
    message: 'You have exceeded your daily SMTP outbound limit.',
  },
  {
    id: 'loops',
    make: (o) => Loops({ transactionalId: 'tx-sign-in', ...o }),
    link: (r) => r.json.dataVariables.url,
    ok: { status: 200, body: { success: true } },
    refusal: { status: 404, body: { success: false, message: 'Transactional email not found.' } },
    message: 'Transactional email not found.',
  },
];

beforeAll(async () => {
  api = await startMailApiFake();
  // The keys come from the environment, as a deployment sets them: AUTH_RESEND_KEY, AUTH_SENDGRID_KEY, ...
  for (const v of vendors) vi.stubEnv(`AUTH_${v.id.toUpperCase()}_KEY`, `key-of-${v.id}`);
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await api?.stop();
});

const tokensFor = async (email: string) =>
  (await pg.db.query<{ n: number }>('SELECT count(*)::int AS n FROM verification_token WHERE identifier = $1', [email])).rows[0].n;

/** A first line of the text part or the bare variable: the link without its HTML escaping. */
function linkFrom(v: VendorCase, req: ReceivedApiRequest): string {
  const found = v.link(req).match(new RegExp(`${ORIGIN}/auth/callback/${v.id}\\?\\S+`));
  if (!found) throw new Error(`no ${v.id} link in ${req.raw.slice(0, 300)}`);
  return found[0];
}

async function requestLink(t: TestAuth, id: string, email: string, client: TestClient = t.client): Promise<ClientResponse> {
  const csrfToken = await t.csrfToken(client);
  return client.post(`/auth/signin/${id}`, { csrfToken, email, callbackUrl: `${ORIGIN}/dashboard` });
}

describe.each(vendors)('$id through the sign-in route', (v) => {
  const app = () => testAuth({ providers: [v.make({ baseUrl: api.url, from: FROM })], adapter: pg.adapter });

  it('mails the link through the vendor API; opening and confirming it signs in', async () => {
    const t = app();
    const email = `ada.${v.id}@example.test`;
    api.answer(() => v.ok);
    const before = api.requests.length;
    const res = await requestLink(t, v.id, email);
    expect(res.status).toBe(302);
    expect(res.location?.href).toBe(`${ORIGIN}/auth/verify-request?provider=${v.id}&type=email`);
    expect(api.requests.length).toBe(before + 1);
    const req = api.requests[before];
    // The key inferred from AUTH_<ID>_KEY reached the vendor in its scheme.
    expect(JSON.stringify(req.headers)).toContain(v.id === 'mailgun' ? Buffer.from(`api:key-of-${v.id}`).toString('base64') : v.id === 'forwardemail' ? Buffer.from(`key-of-${v.id}:`).toString('base64') : `key-of-${v.id}`);
    expect(await tokensFor(email)).toBe(1);

    const link = linkFrom(v, req);
    expect(new URL(link).searchParams.get('email')).toBe(email);
    const page = await t.client.get(link);
    expect(page.status).toBe(200);
    const [form] = readForms(await page.text());
    const done = await t.client.post(new URL(form.action, page.requestUrl), form.fields);
    expect(done.location?.href).toBe(`${ORIGIN}/dashboard`);
    expect(done.setCookie.some((l) => l.startsWith(`${SESSION_COOKIE}=`) && !/max-age=0/i.test(l))).toBe(true);
    const session = (await (await t.client.get('/auth/session')).json()) as { user?: { email?: string } };
    expect(session.user?.email).toBe(email);
    expect(await tokensFor(email)).toBe(0);
  });

  it("ends a refusal in EmailSignInError, logs the vendor's message, and leaves no token", async () => {
    const t = app();
    const email = `bob.${v.id}@example.test`;
    const storedWhileSending: number[] = [];
    // The token is in the database while the vendor is asked: the check after the refusal is not vacuous.
    api.answer(async () => (storedWhileSending.push(await tokensFor(email)), v.refusal));
    const res = await requestLink(t, v.id, email);
    expect(res.status).toBe(302);
    expect(res.location?.href).toBe(`${ORIGIN}/auth/signin?error=EmailSignInError`);
    expect(storedWhileSending).toEqual([1]);
    expect(await tokensFor(email)).toBe(0);

    const logged = t.logger.errors.find((e) => (e as { type?: string }).type === 'EmailSignInError') as Error & { cause?: { err?: unknown; state?: string } };
    expect(logged, `logged: ${t.logger.errorTypes().join(', ')}`).toBeDefined();
    expect(logged.cause?.state).toBe('failed.emailSignIn');
    expect(logged.cause?.err).toBeInstanceOf(EmailApiError);
    expect((logged.cause?.err as EmailApiError).vendorMessage).toBe(v.message);
    expect(JSON.stringify(t.logger.errors.map((e) => [e.message, (e.cause as { err?: Error })?.err?.message]))).not.toContain(`key-of-${v.id}`);
    // The page says only that the mail could not be sent; the vendor's words stay in the log.
    const page = await (await t.client.get(res.location!.href)).text();
    expect(page).toContain('The sign-in e-mail could not be sent.');
    expect(page).not.toContain(v.message.slice(0, 20));
  });
});
