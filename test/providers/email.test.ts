// The e-mail provider on its own: address normalisation, defaults, environment fallbacks, and the default
// mail's content (escaped, with the link in both parts).
import { english } from '../../src/core/messages/english.js';
import { describe, expect, it } from 'vitest';
import { EMAIL_MAX_AGE, Email, magicLinkMessage, Nodemailer, normalizeEmailAddress, resolveEmailProvider, sendMagicLinkMail } from '../../src/providers/email.js';

describe('normalizeEmailAddress', () => {
  it.each([
    ['ada@example.com', 'ada@example.com'],
    ['  Ada@Example.COM\t', 'ada@example.com'],
    ['ADA@EXAMPLE.COM', 'ada@example.com'],
    ['ada＠example.com', 'ada@example.com'], // full-width commercial at (U+FF20)
    ['ada﹫example.com', 'ada@example.com'], // small commercial at (U+FE6B)
    ['ａｄａ@ｅｘａｍｐｌｅ.ｃｏｍ', 'ada@example.com'], // full-width letters
    ['o\'brien+tag@mail.example.org', "o'brien+tag@mail.example.org"],
    ['user@localhost', 'user@localhost'],
    // The domain in its one ASCII form, so the Unicode and punycode spellings are one address.
    ['jörg@bücher.de', 'jörg@xn--bcher-kva.de'],
    ['idn@XN--BCHER-KVA.example', 'idn@xn--bcher-kva.example'],
  ])('normalises %j to %j', (input, expected) => {
    expect(normalizeEmailAddress(input)).toBe(expected);
  });

  it('is idempotent', () => {
    for (const input of ['Ada＠Example.COM ', ' x.y@z.example ', 'idn@bücher.example']) {
      const once = normalizeEmailAddress(input);
      expect(normalizeEmailAddress(once)).toBe(once);
    }
  });

  it.each([
    ['', /empty/],
    ['   ', /empty/],
    ['ada.example.com', /exactly one "@"/],
    ['ada@@example.com', /exactly one "@"/],
    ['ada@evil.com@example.com', /exactly one "@"/],
    ['ada＠evil.com@example.com', /exactly one "@"/], // a homoglyph cannot smuggle a second "@"
    ['"ada@evil.com"@example.com', /quote/],
    ['ada＂@example.com', /quote/], // full-width quotation mark becomes `"`
    ['ada@example.com,eve@evil.com', /comma/],
    ['ada@example.com，eve@evil.com', /comma/], // full-width comma becomes `,`
    ['ada@example.com;eve@evil.com', /not allowed/],
    ['ada @example.com', /not allowed/],
    ['ada@exa mple.com', /not allowed/],
    ['Ada <ada@example.com>', /not allowed/],
    ['ada@example.com\r\nBcc: eve@evil.com', /not allowed/],
    ['ad\u200ba@example.com', /not allowed/], // zero-width space
    ['@example.com', /before "@"/],
    ['.ada@example.com', /misplaced dot/],
    ['ada..b@example.com', /misplaced dot/],
    ['ada@', /not a domain/],
    ['ada@example..com', /not a domain/],
    ['ada@-example.com', /not a domain/],
    ['ada@example.com.', /not a domain/],
    [`${'a'.repeat(65)}@example.com`, /too long/],
    [`ada@${'a'.repeat(250)}.com`, /longer than 254/],
    ['ada@xn--zz.example', /internationalised domain/], // punycode that decodes to nothing valid
  ])('rejects %j', (input, message) => {
    expect(() => normalizeEmailAddress(input)).toThrow(message);
  });

  it('rejects what is not a string', () => {
    expect(() => normalizeEmailAddress(42 as unknown as string)).toThrow(TypeError);
  });
});

describe('Email / Nodemailer', () => {
  it('has the documented defaults', () => {
    const p = Email();
    expect(p).toMatchObject({ id: 'email', name: 'Email', type: 'email', maxAge: EMAIL_MAX_AGE, confirm: true });
    expect(EMAIL_MAX_AGE).toBe(86_400);
    expect(p.normalizeIdentifier).toBe(normalizeEmailAddress);
    expect(Nodemailer()).toMatchObject({ id: 'nodemailer', name: 'Nodemailer', type: 'email' });
  });

  it('lets options override the defaults but never the type', () => {
    const p = Email({ id: 'magic', maxAge: 600, confirm: false, type: 'oauth' } as never);
    expect(p).toMatchObject({ id: 'magic', maxAge: 600, confirm: false, type: 'email' });
  });

  it('takes server and from from AUTH_EMAIL_SERVER / AUTH_EMAIL_FROM unless set explicitly', () => {
    const env = { AUTH_EMAIL_SERVER: 'smtp://mail.example.com:587', AUTH_EMAIL_FROM: 'Example <hi@example.com>' };
    expect(resolveEmailProvider(Email(), env, 'https://app.example.com')).toMatchObject({ server: env.AUTH_EMAIL_SERVER, from: env.AUTH_EMAIL_FROM });
    expect(resolveEmailProvider(Email({ server: 'smtp://own:25', from: 'own@example.com' }), env, 'https://app.example.com')).toMatchObject({
      server: 'smtp://own:25',
      from: 'own@example.com',
    });
    const bare = resolveEmailProvider(Email(), {}, 'https://app.example.com:8443');
    expect(bare.server).toBeUndefined();
    expect(bare.from).toBe('no-reply@app.example.com');
  });

  it('fails to send, naming the setting, when no server is configured', async () => {
    const provider = resolveEmailProvider(Email(), {}, 'http://localhost:3000');
    await expect(
      sendMagicLinkMail({ identifier: 'a@example.com', url: 'http://localhost:3000/auth/callback/email?token=t', expires: new Date(), token: 't', provider, theme: {}, request: new Request('http://localhost:3000'), locale: 'en', messages: english }),
    ).rejects.toThrow(/AUTH_EMAIL_SERVER/);
  });
});

describe('magicLinkMessage', () => {
  const url = 'https://app.example.com/auth/callback/email?callbackUrl=https%3A%2F%2Fapp.example.com%2F&token=abc&email=ada%40example.com';
  const expires = new Date('2030-01-02T03:04:05Z');

  it('puts the link in the text and the HTML part, and says when it expires', () => {
    const m = magicLinkMessage({ url, host: 'app.example.com', expires, theme: {} });
    expect(m.subject).toBe('Sign in to app.example.com');
    expect(m.text).toContain(`\n${url}\n`);
    expect(m.text).toContain('January 2, 2030 at 3:04 AM UTC');
    expect(m.html).toContain(`href="${url.replace(/&/g, '&amp;')}"`);
    expect(m.html).toMatch(/^<!doctype html>/);
  });

  it('escapes the host and the link, and ignores an unsafe brand colour', () => {
    const m = magicLinkMessage({ url: 'https://x.test/?a="><script>', host: '<b>evil</b>', expires, theme: { brandColor: 'red;background:url(x)' } });
    expect(m.html).not.toContain('<script>');
    expect(m.html).not.toContain('<b>evil</b>');
    expect(m.html).toContain('&lt;b&gt;evil&lt;/b&gt;');
    expect(m.html).not.toContain('url(x)');
    expect(m.html).toContain('background:#346df1');
  });

  it('uses a safe brand colour with readable text on it', () => {
    const m = magicLinkMessage({ url, host: 'h', expires, theme: { brandColor: '#ffeb3b' } });
    expect(m.html).toContain('background:#ffeb3b;color:#111418');
  });
});
