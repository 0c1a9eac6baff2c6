// The HTTP API e-mail senders, each against a local fake of its vendor's API: the request the vendor documents
// (method, path, auth header, body with recipient, sender, subject and the link), the vendor's success answer,
// and its refusals turned into an EmailApiError carrying the vendor's message, never the API key.
import { english } from '../../src/core/messages/english.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { resolveEmailProvider, type EmailConfig } from '../../src/providers/email.js';
import {
  EmailApiError,
  ForwardEmail,
  Loops,
  Mailgun,
  Postmark,
  Resend,
  SendGrid,
  type EmailApiOptions,
} from '../../src/providers/index.js';
import { startMailApiFake, type ApiAnswer, type MailApiFake, type ReceivedApiRequest } from '../e2e/peers/mail-api.js';

const ORIGIN = 'https://app.example.com';
const LINK = `${ORIGIN}/auth/callback/x?callbackUrl=${encodeURIComponent(ORIGIN)}&token=tok-7f3a&email=ada%40example.com`;
const FROM = 'Example App <no-reply@mail.example.com>';
const KEY = 'key-live-4b1d9e77c0';
const basic = (s: string) => `Basic ${Buffer.from(s).toString('base64')}`;

let api: MailApiFake;
beforeAll(async () => {
  api = await startMailApiFake();
});
afterAll(() => api?.stop());
beforeEach(() => {
  api.requests.length = 0;
});

/** What the vendor got, in common terms, so one check covers every vendor. */
interface Mail {
  to: string;
  from?: string;
  subject?: string;
  text?: string;
  html?: string;
}

interface VendorCase {
  id: string;
  name: string;
  make: (o: EmailApiOptions) => EmailConfig;
  path: string;
  auth: (req: ReceivedApiRequest) => string | undefined;
  expectedAuth: string;
  read: (req: ReceivedApiRequest) => Mail;
  success: ApiAnswer;
  /** A documented refusal and the message the logged error must carry. */
  refusal: ApiAnswer & { message: string | RegExp };
}

const vendors: VendorCase[] = [
  {
    id: 'resend',
    name: 'Resend',
    make: Resend,
    path: '/emails',
    auth: (r) => r.headers.authorization,
    expectedAuth: `Bearer ${KEY}`,
    read: (r) => ({ to: r.json.to[0], from: r.json.from, subject: r.json.subject, text: r.json.text, html: r.json.html }),
    success: { status: 200, body: { id: '49a3999c-0ce1-4ea6-ab68-afcd6dc2e794' } },
    refusal: { status: 403, body: { statusCode: 403, name: 'validation_error', message: 'The mail.example.com domain is not verified.' }, message: 'The mail.example.com domain is not verified.' },
  },
  {
    id: 'sendgrid',
    name: 'SendGrid',
    make: SendGrid,
    path: '/v3/mail/send',
    auth: (r) => r.headers.authorization,
    expectedAuth: `Bearer ${KEY}`,
    read: (r) => {
      expect(r.json.personalizations).toEqual([{ to: [{ email: 'ada@example.com' }] }]);
      expect(r.json.from).toEqual({ email: 'no-reply@mail.example.com', name: 'Example App' });
      expect(r.json.content.map((c: { type: string }) => c.type)).toEqual(['text/plain', 'text/html']);
      return { to: r.json.personalizations[0].to[0].email, from: FROM, subject: r.json.subject, text: r.json.content[0].value, html: r.json.content[1].value };
    },
    success: { status: 202 }, // accepted, empty body
    refusal: {
      status: 400,
      body: { errors: [{ message: 'The from address does not match a verified Sender Identity.', field: 'from', help: null }] },
      message: 'The from address does not match a verified Sender Identity.',
    },
  },
  {
    id: 'postmark',
    name: 'Postmark',
    make: Postmark,
    path: '/email',
    auth: (r) => r.headers['x-postmark-server-token'] as string | undefined,
    expectedAuth: KEY,
    read: (r) => {
      expect(r.json.MessageStream).toBe('outbound');
      expect(r.headers.accept).toBe('application/json');
      return { to: r.json.To, from: r.json.From, subject: r.json.Subject, text: r.json.TextBody, html: r.json.HtmlBody };
    },
    success: { status: 200, body: { To: 'ada@example.com', SubmittedAt: '2026-01-15T12:00:00.0000000Z', MessageID: 'b7bc2f4a-e38e-4336-af7d-e6c392c2f817', ErrorCode: 0, Message: 'OK' } },
    refusal: { status: 422, body: { ErrorCode: 400, Message: "The 'From' address you supplied is not a Sender Signature on your account." }, message: /ErrorCode 400: The 'From' address you supplied/ },
  },
  {
    id: 'mailgun',
    name: 'Mailgun',
    make: Mailgun,
    path: '/v3/mail.example.com/messages',
    auth: (r) => r.headers.authorization,
    expectedAuth: basic(`api:${KEY}`),
    read: (r) => {
      expect(r.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
      return { to: r.form!.to, from: r.form!.from, subject: r.form!.subject, text: r.form!.text, html: r.form!.html };
    },
    success: { status: 200, body: { id: '<20260115120000.1.ABCDEF@mail.example.com>', message: 'Queued. Thank you.' } },
    refusal: { status: 400, body: { message: "'to' parameter is not a valid address. please check documentation" }, message: "'to' parameter is not a valid address. please check documentation" },
  },
  {
    id: 'forwardemail',
    name: 'Forward Email',
    make: ForwardEmail,
    path: '/v1/emails',
    auth: (r) => r.headers.authorization,
    expectedAuth: basic(`${KEY}:`),
    read: (r) => ({ to: r.json.to, from: r.json.from, subject: r.json.subject, text: r.json.text, html: r.json.html }),
    success: { status: 200, body: { id: '65f1a2b3c4d5e6f708192a3b', object: 'email', status: 'queued' } },
    refusal: { status: 403, body: { statusCode: 403, error: 'Forbidden', message: 'Domain is not configured for outbound SMTP.' }, message: 'Domain is not configured for outbound SMTP.' },
  },
];

const loopsCase = {
  make: (o: EmailApiOptions) => Loops({ transactionalId: 'clx1234abc', ...o }),
};

/** Calls the provider's sender as the e-mail flow does: provider resolved against `env`, link for ada. */
async function send(provider: EmailConfig, env: Record<string, string> = {}): Promise<void> {
  const resolved = resolveEmailProvider(provider, env, ORIGIN);
  await provider.sendVerificationRequest!({
    identifier: 'ada@example.com',
    url: LINK,
    expires: new Date('2030-01-02T03:04:05Z'),
    token: 'tok-7f3a',
    provider: resolved,
    theme: {},
    request: new Request(`${ORIGIN}/auth/signin/${provider.id}`, { method: 'POST' }),
    locale: 'en',
    messages: english,
  });
}

async function refusalOf(p: Promise<void>): Promise<EmailApiError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(EmailApiError);
  return err as EmailApiError;
}

describe.each(vendors)('$name sender', (v) => {
  it(`is an e-mail provider with the Auth.js id "${v.id}"`, () => {
    expect(v.make({})).toMatchObject({ id: v.id, name: v.name, type: 'email', confirm: true, maxAge: 86_400 });
  });

  it('POSTs the documented request: path, auth header, recipient, sender, subject, and the link in text and HTML', async () => {
    api.answer(() => v.success);
    await send(v.make({ baseUrl: api.url, apiKey: KEY, from: FROM }));
    expect(api.requests).toHaveLength(1);
    const [req] = api.requests;
    expect(req.method).toBe('POST');
    expect(req.path).toBe(v.path);
    expect(v.auth(req)).toBe(v.expectedAuth);
    const mail = v.read(req);
    expect(mail.to).toBe('ada@example.com');
    expect(mail.from).toBe(FROM);
    expect(mail.subject).toBe('Sign in to app.example.com');
    expect(mail.text).toContain(LINK);
    expect(mail.html).toContain(`href="${LINK.replace(/&/g, '&amp;')}"`);
  });

  it(`takes the key from AUTH_${v.id.toUpperCase()}_KEY when apiKey is not set (apiKey wins when it is)`, async () => {
    api.answer(() => v.success);
    await send(v.make({ baseUrl: api.url, from: FROM }), { [`AUTH_${v.id.toUpperCase()}_KEY`]: KEY });
    expect(v.auth(api.requests[0])).toBe(v.expectedAuth);
    await send(v.make({ baseUrl: api.url, from: FROM, apiKey: KEY }), { [`AUTH_${v.id.toUpperCase()}_KEY`]: 'other-key' });
    expect(v.auth(api.requests[1])).toBe(v.expectedAuth);
  });

  it('refuses to send without a key, naming the variable, and calls nobody', async () => {
    const err = await refusalOf(send(v.make({ baseUrl: api.url, from: FROM })));
    expect(err.message).toContain(`AUTH_${v.id.toUpperCase()}_KEY`);
    expect(api.requests).toHaveLength(0);
  });

  it("turns the vendor's documented refusal into an EmailApiError with its message and status", async () => {
    const { message, ...answer } = v.refusal;
    api.answer(() => answer);
    const err = await refusalOf(send(v.make({ baseUrl: api.url, apiKey: KEY, from: FROM })));
    expect(err.vendor).toBe(v.name);
    expect(err.status).toBe(v.refusal.status);
    expect(err.vendorMessage).toMatch(message);
    expect(err.message).toContain(`${v.name} refused the sign-in mail (HTTP ${v.refusal.status})`);
  });

  it('never puts the key in the error, even when the vendor echoes it', async () => {
    api.answer(() => ({ status: 401, body: { message: `Invalid API key ${KEY}` } }));
    const err = await refusalOf(send(v.make({ baseUrl: api.url, apiKey: KEY, from: FROM })));
    expect(err.message).toContain('Invalid API key [api key]');
    expect(JSON.stringify({ m: err.message, v: err.vendorMessage })).not.toContain(KEY);
  });
});

describe('Loops sender', () => {
  it('is an e-mail provider with the Auth.js id "loops" and needs a transactionalId', () => {
    expect(loopsCase.make({})).toMatchObject({ id: 'loops', name: 'Loops', type: 'email' });
    expect(() => Loops({} as never)).toThrow(/transactionalId/);
    expect(() => (Loops as (o?: unknown) => unknown)()).toThrow(/transactionalId/);
  });

  it('POSTs the transactional id, the recipient and the link as the `url` data variable, with a Bearer key', async () => {
    api.answer(() => ({ status: 200, body: { success: true } }));
    await send(loopsCase.make({ baseUrl: api.url, from: FROM }), { AUTH_LOOPS_KEY: KEY });
    const [req] = api.requests;
    expect(req.method).toBe('POST');
    expect(req.path).toBe('/api/v1/transactional');
    expect(req.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(req.headers['content-type']).toBe('application/json');
    // The sender and content live in the Loops template: only the id, address and variables travel.
    expect(req.json).toEqual({ transactionalId: 'clx1234abc', email: 'ada@example.com', dataVariables: { url: LINK } });
  });

  it.each([
    [{ status: 404, body: { success: false, message: 'Transactional email not found.' } }, 404, 'Transactional email not found.'],
    [{ status: 400, body: { success: false, path: 'dataVariables', message: 'Missing required fields: url' } }, 400, 'Missing required fields: url'],
    // A refusal reported with a success status is still a refusal.
    [{ status: 200, body: { success: false, message: 'Contact is unsubscribed.' } }, 200, 'Contact is unsubscribed.'],
  ])('turns %j into an EmailApiError', async (answer, status, message) => {
    api.answer(() => answer);
    const err = await refusalOf(send(loopsCase.make({ baseUrl: api.url, apiKey: KEY })));
    expect(err).toMatchObject({ vendor: 'Loops', status, vendorMessage: message });
  });
});

describe('vendor specifics', () => {
  it('Mailgun: region EU uses api.eu.mailgun.net, US (default) api.mailgun.net; baseUrl overrides both', async () => {
    const seen: string[] = [];
    const realFetch = globalThis.fetch;
    // Only to see which host each region picks; the request is then answered by the local fake.
    globalThis.fetch = ((input: string | URL | Request, init?: RequestInit) => {
      const url = new URL(String(input));
      seen.push(url.origin);
      return realFetch(`${api.url}${url.pathname}`, init);
    }) as typeof fetch;
    try {
      api.answer(() => ({ status: 200, body: { id: '<1@mg>', message: 'Queued. Thank you.' } }));
      await send(Mailgun({ apiKey: KEY, from: FROM, region: 'EU' }));
      await send(Mailgun({ apiKey: KEY, from: FROM }));
      await send(Mailgun({ apiKey: KEY, from: FROM, region: 'EU', baseUrl: 'http://proxy.test' }));
    } finally {
      globalThis.fetch = realFetch;
    }
    expect(seen).toEqual(['https://api.eu.mailgun.net', 'https://api.mailgun.net', 'http://proxy.test']);
    expect(() => Mailgun({ region: 'ASIA' as never })).toThrow(/region/);
  });

  it('Mailgun: the sending domain is `domain` when set, else the domain of `from`', async () => {
    api.answer(() => ({ status: 200, body: { id: '<1@mg>', message: 'Queued. Thank you.' } }));
    await send(Mailgun({ baseUrl: api.url, apiKey: KEY, from: 'bare@example.org' }));
    await send(Mailgun({ baseUrl: api.url, apiKey: KEY, from: FROM, domain: 'mg.example.net' }));
    expect(api.requests.map((r) => r.path)).toEqual(['/v3/example.org/messages', '/v3/mg.example.net/messages']);
  });

  it('the default API origins are the vendors\' public ones', async () => {
    const seen: string[] = [];
    const realFetch = globalThis.fetch;
    globalThis.fetch = ((input: string | URL | Request) => {
      seen.push(String(input));
      return Promise.resolve(new Response(null, { status: 202 }));
    }) as typeof fetch;
    try {
      for (const make of [Resend, SendGrid, Postmark, ForwardEmail, loopsCase.make]) await send(make({ apiKey: KEY, from: FROM }));
    } finally {
      globalThis.fetch = realFetch;
    }
    expect(seen).toEqual([
      'https://api.resend.com/emails',
      'https://api.sendgrid.com/v3/mail/send',
      'https://api.postmarkapp.com/email',
      'https://api.forwardemail.net/v1/emails',
      'https://app.loops.so/api/v1/transactional',
    ]);
  });

  it('Postmark: a 200 carrying a non-zero ErrorCode is a refusal', async () => {
    api.answer(() => ({ status: 200, body: { ErrorCode: 406, Message: 'You tried to send to a recipient that has been marked as inactive.' } }));
    const err = await refusalOf(send(Postmark({ baseUrl: api.url, apiKey: KEY, from: FROM })));
    expect(err.vendorMessage).toBe('ErrorCode 406: You tried to send to a recipient that has been marked as inactive.');
  });

  it('Postmark: messageStream picks another stream', async () => {
    api.answer(() => ({ status: 200, body: { ErrorCode: 0, Message: 'OK' } }));
    await send(Postmark({ baseUrl: api.url, apiKey: KEY, from: FROM, messageStream: 'sign-in' }));
    expect(api.requests[0].json.MessageStream).toBe('sign-in');
  });

  it('SendGrid: a bare `from` address is sent without a name', async () => {
    api.answer(() => ({ status: 202 }));
    await send(SendGrid({ baseUrl: api.url, apiKey: KEY, from: 'no-reply@example.com' }));
    expect(api.requests[0].json.from).toEqual({ email: 'no-reply@example.com' });
  });
});

describe('the shared HTTP exchange', () => {
  it('keeps a path prefix on baseUrl (a proxy) and drops a trailing slash', async () => {
    api.answer(() => ({ status: 200, body: { id: 'x' } }));
    await send(Resend({ baseUrl: `${api.url}/proxy/resend/`, apiKey: KEY, from: FROM }));
    expect(api.requests[0].path).toBe('/proxy/resend/emails');
  });

  it('reports a plain-text or empty refusal by its text or status', async () => {
    api.answer(() => ({ status: 401, body: 'Forbidden' }));
    expect((await refusalOf(send(Mailgun({ baseUrl: api.url, apiKey: KEY, from: FROM })))).vendorMessage).toBe('Forbidden');
    api.answer(() => ({ status: 503 }));
    expect((await refusalOf(send(Resend({ baseUrl: api.url, apiKey: KEY, from: FROM })))).vendorMessage).toBe('Service Unavailable');
  });

  it('makes a vendor message one bounded log line', async () => {
    api.answer(() => ({ status: 400, body: { message: `bad\r\nFAKE LOG LINE: admin signed in ${'x'.repeat(5000)}` } }));
    const err = await refusalOf(send(Resend({ baseUrl: api.url, apiKey: KEY, from: FROM })));
    expect(err.vendorMessage).not.toMatch(/[\r\n]/);
    expect(err.vendorMessage.length).toBeLessThanOrEqual(501);
  });

  it('gives up on a vendor that does not answer within `timeout`, saying so', async () => {
    api.hang();
    const err = await refusalOf(send(Resend({ baseUrl: api.url, apiKey: KEY, from: FROM, timeout: 200 })));
    expect(err.status).toBeUndefined();
    expect(err.vendorMessage).toBe(`no answer within 200 ms at ${api.url}`);
  });

  it('reports a vendor that cannot be reached', async () => {
    const gone = await startMailApiFake();
    await gone.stop();
    const err = await refusalOf(send(Resend({ baseUrl: gone.url, apiKey: KEY, from: FROM })));
    expect(err.vendorMessage).toMatch(/^could not be reached .* at http:\/\/127\.0\.0\.1:\d+$/);
  });
});
