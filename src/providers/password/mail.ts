// The mails of password recovery: the reset link and code, and the notice that a password was changed. Sent by the
// app's `mail.send`, else by nodemailer to `mail.server` (or AUTH_EMAIL_SERVER), from `mail.from` (or AUTH_EMAIL_FROM).
import { escapeHtml } from '../../core/html-escape.js';
import type { Env } from '../../core/env.js';
import type { Translator } from '../../core/messages/translator.js';
import type { Awaitable } from '../../core/types.js';
import { transportFor, type EmailServer } from '../email.js';

/** One mail of password recovery, rendered in the reader's language, ready to send. */
export interface PasswordMail {
  /** `reset`: the link and code that reset a forgotten password; `changed`: the notice after a change. */
  kind: 'reset' | 'changed';
  to: string;
  subject: string;
  text: string;
  html: string;
  /** `reset`: the link (opens in any browser); `changed`: where to ask for a reset if it was not the reader. */
  url: string;
  /** `reset` only: the code, typed in the browser that asked. */
  code?: string;
  locale: string;
}

/** How a Password provider sends its mails. */
export interface PasswordMailOptions {
  /** An SMTP URL or nodemailer transport options (default `AUTH_EMAIL_SERVER`). */
  server?: EmailServer;
  /** The sender address (default `AUTH_EMAIL_FROM`, then `no-reply@<host>`). */
  from?: string;
  /** Sends a mail yourself instead of nodemailer. */
  send?: (mail: PasswordMail) => Awaitable<void>;
}

/** The text of a mail: paragraphs, one of which may be the link (shown as a button in the HTML). */
export function passwordMail(kind: PasswordMail['kind'], to: string, i18n: Translator, parts: { host: string; url: string; code?: string; expires?: Date }): PasswordMail {
  const { host, url, code } = parts;
  const h = escapeHtml;
  let subject: string;
  let paragraphs: { text: string; link?: boolean; code?: boolean }[];
  if (kind === 'reset') {
    subject = i18n.t('recoveryMail.subject', { host });
    paragraphs = [
      { text: i18n.t('recoveryMail.intro', { host }) },
      { text: url, link: true },
      ...(code !== undefined ? [{ text: i18n.t('recoveryMail.code') }, { text: code, code: true }] : []),
      { text: i18n.t('recoveryMail.expires', { date: i18n.dateTime(parts.expires ?? new Date()) }) },
      { text: i18n.t('recoveryMail.ignore') },
    ];
  } else {
    subject = i18n.t('changedMail.subject', { host });
    paragraphs = [{ text: i18n.t('changedMail.body', { host, date: i18n.dateTime(new Date()) }) }, { text: i18n.t('changedMail.notYou') }, { text: url, link: true }];
  }
  const text = `${paragraphs.map((p) => p.text).join('\n\n')}\n`;
  const rows = paragraphs.map((p) =>
    p.link
      ? `<p style="text-align:center"><a href="${h(p.text)}" style="display:inline-block;padding:12px 24px;border-radius:6px;background:#346df1;color:#fff;text-decoration:none;font-weight:bold">${h(kind === 'reset' ? i18n.t('recovery.newTitle') : i18n.t('recovery.title'))}</a></p>`
      : p.code
        ? `<p dir="ltr" style="text-align:center;font-size:28px;font-weight:bold;letter-spacing:6px;font-family:Menlo,Consolas,monospace">${h(p.text)}</p>`
        : `<p>${h(p.text)}</p>`,
  );
  const html = `<!doctype html>
<html lang="${h(i18n.locale)}" dir="${i18n.dir}"><head><meta charset="utf-8"><title>${h(subject)}</title></head>
<body style="font-family:Helvetica,Arial,sans-serif;max-width:560px;margin:0 auto;padding:24px;color:#111418">
${rows.join('\n')}
</body></html>
`;
  return { kind, to, subject, text, html, url, ...(code !== undefined ? { code } : {}), locale: i18n.locale };
}

/** Sends a password mail with the provider's `send`, else with nodemailer; rejects when it cannot. */
export async function sendPasswordMail(options: PasswordMailOptions | undefined, env: Env, origin: string, mail: PasswordMail): Promise<void> {
  if (options?.send) return void (await options.send(mail));
  const server = options?.server ?? (env.AUTH_EMAIL_SERVER || undefined);
  if (!server) throw new Error('The Password provider has no `mail.server` (or AUTH_EMAIL_SERVER) or `mail.send` to send recovery mails with.');
  const from = options?.from ?? (env.AUTH_EMAIL_FROM || `no-reply@${new URL(origin).hostname}`);
  const transport = await transportFor(server);
  const result = await transport.sendMail({ to: mail.to, from, subject: mail.subject, text: mail.text, html: mail.html });
  const failed = [...(result.rejected ?? []), ...(result.pending ?? [])].filter(Boolean);
  if (failed.length > 0) throw new Error('The mail server did not accept the password mail.');
}
