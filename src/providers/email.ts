// The e-mail (magic link) provider: how addresses are normalised, how long a link lives and who sends it.
// The flow itself is flows/email/machine.ts; the default mail is plain HTML + text sent with nodemailer, when installed.
import { asciiEmailDomain } from '../core/email-address.js';
import { providerEnv, type Env } from '../core/env.js';
import type { Awaitable } from '../core/types.js';
import { escapeHtml } from '../core/html-escape.js';
import { readableTextOn, safeColor } from '../core/color.js';
import type { Theme } from '../core/theme.js';
import { english } from '../core/messages/english.js';
import { messageParts, type Translator } from '../core/messages/translator.js';
import type { CommonProviderOptions } from '../core/provider.js';
import { emailCodeOptions, type EmailCodeOptions } from '../core/email-code.js';
import { transportFor } from '../core/mail-transport.js';

export { emailCodeOptions, type EmailCodeOptions, type ResolvedEmailCode } from '../core/email-code.js';

/** An SMTP connection URL (`smtp://user:pass@host:587`) or nodemailer transport options. */
export type EmailServer = string | Record<string, unknown>;


/** What `sendVerificationRequest` gets: the address, the link, and everything needed to send it. */
export interface SendVerificationRequestParams {
  /** The normalised address the link is for. */
  identifier: string;
  /** The magic link: `{origin}{basePath}/callback/{id}?callbackUrl=…&token=…&email=…`. */
  url: string;
  expires: Date;
  /** The raw token in the link (only its hash is stored). */
  token: string;
  /**
   * The one-time code to type on the page that asked for the mail, when the provider sends codes (`code`); only
   * the browser that asked can use it. With `code: { link: false }` the default mail carries the code alone.
   */
  code?: string;
  /** The provider, with `server` and `from` resolved from the environment when not set. */
  provider: EmailConfig & { from: string };
  theme: Theme;
  request: Request;
  /** The language of the request that asked for the mail (BCP 47), chosen as for the pages. */
  locale: string;
  /** The built-in messages in that language (`messages.t('mail.subject', { host })`), for a mail of your own. */
  messages: Translator;
}

export interface EmailConfig extends CommonProviderOptions {
  type: 'email';
  /** Where the default sender delivers; falls back to `AUTH_EMAIL_SERVER`. */
  server?: EmailServer;
  /** The sender address; falls back to `AUTH_EMAIL_FROM`, then `no-reply@<host of the request>`. */
  from?: string;
  /** The API key of an HTTP e-mail API sender (Resend, SendGrid, ...); falls back to `AUTH_{PROVIDER}_KEY`. */
  apiKey?: string;
  /** Seconds a link stays valid (default 24 h). */
  maxAge: number;
  /**
   * `true` (default): opening the link shows a confirmation page and only its button signs in, so mail scanners
   * and link previews that fetch the link cannot use it up. `false`: the link signs in on GET (one click).
   */
  confirm: boolean;
  /** Sends the mail; replaces the default nodemailer sender. Throwing ends the flow in `EmailSignInError`. */
  sendVerificationRequest?: (params: SendVerificationRequestParams) => Awaitable<void>;
  /** Makes the secret part of the link (default: 32 random bytes, hex). */
  generateVerificationToken?: () => Awaitable<string>;
  /** Turns what the user typed into the one address an account is keyed by; throws for an unusable address. */
  normalizeIdentifier: (identifier: string) => string;
  /** Hashes the stored tokens instead of the configuration's `secret`; with a list, the first hashes new tokens. */
  secret?: string | string[];
  /**
   * One-time codes (off by default). `true`: the mail carries a code beside the link, and the page after sending
   * asks for it; `{ link: false }`: the code instead of the link. Whichever is used first spends both. See
   * {@link EmailCodeOptions} for the length, the attempts and the cooldown.
   */
  code?: boolean | EmailCodeOptions;
}

export type EmailUserConfig = Partial<Omit<EmailConfig, 'type'>>;

/** Default link lifetime: one day, in seconds. */
export const EMAIL_MAX_AGE = 24 * 60 * 60;

// One address is at most 254 characters (RFC 5321 path limit), a local part at most 64.
const MAX_ADDRESS = 254;
const MAX_LOCAL = 64;
// Characters that let one string name several mailboxes, inject headers, or hide a quoted local part.
const forbidden = /["\s,;:<>()[\]\\\p{Cc}\p{Cf}]/u;
const domainPattern = /^[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?(?:\.[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?)*$/u;

/**
 * The default address normaliser: Unicode NFKC (so a full-width `＠` or ligature becomes its plain form), trim,
 * lower-case, then exactly one `@` with a non-empty local part and a well-formed domain, which is returned in its
 * ASCII form (`bücher.example` becomes `xn--bcher-kva.example`). Quotes, commas, whitespace, angle brackets and
 * control characters are refused rather than repaired, so two spellings of one mailbox can never become two
 * accounts, and one string can never name two mailboxes.
 *
 * @throws TypeError naming what is wrong.
 * @example
 * normalizeEmailAddress('  Ada＠Example.COM ') // 'ada@example.com'
 * normalizeEmailAddress('idn@bücher.example') // 'idn@xn--bcher-kva.example'
 */
export function normalizeEmailAddress(input: string): string {
  if (typeof input !== 'string') throw new TypeError('An e-mail address must be a string.');
  const value = input.normalize('NFKC').trim().toLowerCase();
  if (value.length === 0) throw new TypeError('The e-mail address is empty.');
  if (value.length > MAX_ADDRESS) throw new TypeError(`The e-mail address is longer than ${MAX_ADDRESS} characters.`);
  if (forbidden.test(value)) throw new TypeError('The e-mail address contains a quote, comma, space or other character that is not allowed.');
  const parts = value.split('@');
  if (parts.length !== 2) throw new TypeError('The e-mail address must contain exactly one "@".');
  const [local, domain] = parts;
  if (!local || local.length > MAX_LOCAL) throw new TypeError('The part before "@" is empty or too long.');
  if (local.startsWith('.') || local.endsWith('.') || local.includes('..')) throw new TypeError('The part before "@" has a misplaced dot.');
  if (!domainPattern.test(domain)) throw new TypeError('The part after "@" is not a domain name.');
  const ascii = asciiEmailDomain(value);
  if (!ascii) throw new TypeError('The part after "@" is not a valid internationalised domain name.');
  if (ascii.length > MAX_ADDRESS) throw new TypeError(`The e-mail address is longer than ${MAX_ADDRESS} characters.`);
  return ascii;
}

/**
 * The e-mail (magic link) provider. Needs an adapter (tokens and users are stored). Without
 * `sendVerificationRequest`, mail is sent with nodemailer (install it) through `server` or `AUTH_EMAIL_SERVER`.
 *
 * @example
 * Email({ server: 'smtp://user:pass@smtp.example.com:587', from: 'Example <no-reply@example.com>' })
 * Email({ sendVerificationRequest: async ({ identifier, url }) => myMailer.send(identifier, url) })
 */
export function Email(options: EmailUserConfig = {}): EmailConfig {
  return {
    id: 'email',
    name: 'Email',
    maxAge: EMAIL_MAX_AGE,
    confirm: true,
    normalizeIdentifier: normalizeEmailAddress,
    ...options,
    type: 'email',
  };
}

/**
 * {@link Email} under the id and name `nodemailer`, for configurations written for Auth.js's `Nodemailer`.
 *
 * @example
 * Nodemailer({ server: process.env.EMAIL_SERVER, from: process.env.EMAIL_FROM })
 */
export function Nodemailer(options: EmailUserConfig = {}): EmailConfig {
  return Email({ id: 'nodemailer', name: 'Nodemailer', ...options });
}

/**
 * The provider with `server`, `from` and `apiKey` filled in from the environment (explicit options win). The key
 * is read per provider id, as Auth.js does: `resend` reads `AUTH_RESEND_KEY`, `forwardemail` `AUTH_FORWARDEMAIL_KEY`.
 */
export function resolveEmailProvider(provider: EmailConfig, env: Env, origin: string): EmailConfig & { from: string } {
  const server = provider.server ?? (env.AUTH_EMAIL_SERVER || undefined);
  const from = provider.from ?? (env.AUTH_EMAIL_FROM || `no-reply@${new URL(origin).hostname}`);
  const apiKey = provider.apiKey ?? providerEnv(env, provider.id, 'KEY');
  return { ...provider, server, from, ...(apiKey ? { apiKey } : {}) };
}

/**
 * The app's e-mail provider, resolved (server, sender), whose server also carries the library's own mails: sign-up,
 * recovery, change notices and invitations. Undefined when no e-mail provider is configured.
 */
export function configuredMailer(config: { providers: readonly { type: string }[]; env: Env }, origin: string): (EmailConfig & { from: string }) | undefined {
  const email = config.providers.find((p) => p.type === 'email') as unknown as EmailConfig | undefined;
  return email ? resolveEmailProvider(email, config.env, origin) : undefined;
}

/**
 * The subject, text and HTML of the default sign-in mail, in the reader's language (`messages`): the link, the code
 * beside it (`code`), or the code alone (`code` with `link: false`). Every value is escaped in the HTML.
 */
export function magicLinkMessage(params: { url: string; host: string; expires: Date; theme: Theme; messages?: Translator; code?: string; link?: boolean }): { subject: string; text: string; html: string } {
  const { url, host, expires, code } = params;
  const i18n = params.messages ?? english;
  const withLink = params.link !== false || code === undefined;
  const brand = safeColor(params.theme.brandColor) ?? '#346df1';
  const buttonText = safeColor(params.theme.buttonText) ?? readableTextOn(brand);
  const until = i18n.dateTime(expires);
  const subject = i18n.t('mail.subject', { host });
  const expiry = i18n.t(withLink ? 'mail.expires' : 'mail.expiresCode', { date: until });
  const ignore = i18n.t('mail.ignore');
  const codeIntro = i18n.t(withLink ? 'mail.codeIntro' : 'mail.codeIntroOnly');
  const lines = [i18n.t('mail.heading', { host }), ''];
  if (withLink) lines.push(i18n.t('mail.open'), url, '');
  if (code !== undefined) lines.push(codeIntro, code, '');
  const text = `${lines.join('\n')}\n${expiry}\n${ignore}\n`;
  const h = escapeHtml;
  // The heading with the host in bold: the message's own text escaped, the host put in as markup.
  const heading = messageParts(i18n.text('mail.heading'))
    .map((p) => (typeof p === 'string' ? h(p) : p.slot === 'host' ? `<strong>${h(host)}</strong>` : h(`{${p.slot}}`)))
    .join('');
  const button = withLink
    ? `<tr><td style="padding:8px 24px;text-align:center">
<a href="${h(url)}" target="_blank" style="display:inline-block;padding:12px 24px;border-radius:6px;background:${h(brand)};color:${h(buttonText)};text-decoration:none;font-weight:bold">${h(i18n.t('mail.button'))}</a>
</td></tr>
`
    : '';
  const codeRows =
    code !== undefined
      ? `<tr><td style="padding:16px 24px 0;text-align:center;font-size:15px">${h(codeIntro)}</td></tr>
<tr><td dir="ltr" style="padding:8px 24px;text-align:center;font-size:28px;font-weight:bold;letter-spacing:6px;font-family:Menlo,Consolas,monospace">${h(code)}</td></tr>
`
      : '';
  const html = `<!doctype html>
<html lang="${h(i18n.locale)}" dir="${i18n.dir}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${h(subject)}</title></head>
<body style="margin:0;padding:24px;background:#f4f5f7;font-family:Helvetica,Arial,sans-serif;color:#111418">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="max-width:560px;margin:0 auto;background:#ffffff;border-radius:8px">
<tr><td style="padding:24px;text-align:center;font-size:20px">${heading}</td></tr>
${button}${codeRows}<tr><td style="padding:16px 24px 24px;text-align:center;font-size:13px;color:#5f6b7a">${h(expiry)}<br>${h(ignore)}</td></tr>
</table>
</body>
</html>
`;
  return { subject, text, html };
}

export { transportFor, sendMailThrough, type MailTransport } from '../core/mail-transport.js';


/**
 * The default `sendVerificationRequest`: the {@link magicLinkMessage} sent with nodemailer to `identifier`.
 * Rejects when no server is configured or when the server refuses the recipient.
 *
 * @example
 * Email({ sendVerificationRequest: (params) => (isTest ? log(params.url) : sendMagicLinkMail(params)) })
 */
export async function sendMagicLinkMail(params: SendVerificationRequestParams): Promise<void> {
  const { identifier, url, expires, provider, theme, messages, code } = params;
  if (!provider.server) throw new Error(`The e-mail provider "${provider.id}" has no \`server\`; set it or AUTH_EMAIL_SERVER.`);
  const transport = await transportFor(provider.server);
  const message = magicLinkMessage({ url, host: new URL(url).host, expires, theme, messages, code, link: emailCodeOptions(provider)?.link });
  const result = await transport.sendMail({ to: identifier, from: provider.from, ...message });
  const failed = [...(result.rejected ?? []), ...(result.pending ?? [])].filter(Boolean);
  if (failed.length > 0) throw new Error(`The mail server did not accept the sign-in mail for ${failed.map(String).join(', ')}.`);
}

/**
 * A plain-text notice (a password changed) sent with nodemailer through an e-mail provider's `server`, from its
 * `from`. Rejects when the provider has no server or the server refuses the recipient.
 *
 * @example
 * await sendNoticeMail({ provider, to: user.email, subject: 'Your password was changed', text })
 */
export async function sendNoticeMail(params: { provider: EmailConfig & { from: string }; to: string; subject: string; text: string }): Promise<void> {
  const { provider, to, subject, text } = params;
  if (!provider.server) throw new Error(`The e-mail provider "${provider.id}" has no \`server\`; set it or AUTH_EMAIL_SERVER.`);
  const transport = await transportFor(provider.server);
  const result = await transport.sendMail({ to, from: provider.from, subject, text });
  const failed = [...(result.rejected ?? []), ...(result.pending ?? [])].filter(Boolean);
  if (failed.length > 0) throw new Error(`The mail server did not accept the notice for ${failed.map(String).join(', ')}.`);
}
