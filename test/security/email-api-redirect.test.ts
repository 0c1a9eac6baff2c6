// Attack: the e-mail API's address answers with a redirect to a host the attacker runs (a hijacked proxy, a
// poisoned base URL, a compromised edge). Following it would re-POST the mail, magic link included, and the
// vendor credential headers (X-Postmark-Server-Token survives a cross-origin redirect; only Authorization is
// dropped) to that host. The senders refuse redirects: nothing reaches the other host, the sign-in fails cleanly
// and the unsent token is revoked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmailConfig } from '../../src/providers/email.js';
import { EmailApiError, Postmark, Resend } from '../../src/providers/index.js';
import { ORIGIN, testAuth } from '../support/auth-app.js';
import { useMigratedPGlite } from '../support/pglite.js';
import { startMailApiFake, type MailApiFake } from '../e2e/peers/mail-api.js';

const pg = useMigratedPGlite();
let vendor: MailApiFake;
let attacker: MailApiFake;

beforeAll(async () => {
  [vendor, attacker] = await Promise.all([startMailApiFake(), startMailApiFake()]);
  attacker.answer(() => ({ status: 200, body: { id: 'stolen', ErrorCode: 0, Message: 'OK' } }));
});
afterAll(async () => {
  await Promise.all([vendor?.stop(), attacker?.stop()]);
});

const KEY = 'server-token-9c1e55';

describe.each([
  ['Postmark', (base: string) => Postmark({ baseUrl: base, apiKey: KEY, from: 'no-reply@example.test' })],
  ['Resend', (base: string) => Resend({ baseUrl: base, apiKey: KEY, from: 'no-reply@example.test' })],
] as const)('%s API answering with a redirect to another host', (name, make: (base: string) => EmailConfig) => {
  it.each([307, 308])('HTTP %i: sends nothing there, fails the sign-in, revokes the token', async (status) => {
    vendor.answer((req) => ({ status, headers: { location: `${attacker.url}${req.path}` } }));
    const t = testAuth({ providers: [make(vendor.url)], adapter: pg.adapter });
    const email = `victim.${name.toLowerCase()}.${status}@example.test`;
    const csrfToken = await t.csrfToken();
    const before = attacker.requests.length;
    const res = await t.client.post(`/auth/signin/${make(vendor.url).id}`, { csrfToken, email, callbackUrl: `${ORIGIN}/` });

    expect(attacker.requests.length - before, 'requests that reached the redirect target').toBe(0);
    expect(res.location?.href).toBe(`${ORIGIN}/auth/signin?error=EmailSignInError`);
    const { rows } = await pg.db.query<{ n: number }>('SELECT count(*)::int AS n FROM verification_token WHERE identifier = $1', [email]);
    expect(rows[0].n).toBe(0);
    const logged = t.logger.errors.find((e) => (e as { type?: string }).type === 'EmailSignInError');
    const err = (logged?.cause as { err?: EmailApiError } | undefined)?.err;
    expect(err).toBeInstanceOf(EmailApiError);
    expect(err?.status).toBe(status);
    expect(err?.vendorMessage).toMatch(/redirect/);
  });
});
