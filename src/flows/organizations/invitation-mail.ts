// The invitation mail: who invites the reader to which organization, with which role, the link and its expiry, in
// the invitee's language. Sent by the app's `organizations.invitations.send`, else through the e-mail provider's server.
import { lineMail } from '../../core/line-mail.js';
import type { InternalConfig } from '../../core/config.js';
import type { InvitationMail } from '../../core/invitations.js';
import type { Translator } from '../../core/messages/translator.js';
import { configuredMailer, sendMailThrough } from '../../providers/email.js';

/** The subject, text and HTML of an invitation mail, in the reader's language; every value escaped in the HTML. */
export function invitationMessage(mail: InvitationMail, host: string, i18n: Translator): { subject: string; text: string; html: string } {
  const values = { organization: mail.organizationName, inviter: mail.inviter ?? host, role: mail.role, host };
  const subject = i18n.t('invitationMail.subject', values);
  const lines = [i18n.t('invitationMail.body', values), mail.url, '', i18n.t('invitationMail.expires', { date: i18n.dateTime(mail.expires) }), i18n.t('invitationMail.ignore')];
  return lineMail(subject, lines, i18n);
}

/** Sends an invitation: the app's `send`, else the default message through the e-mail provider's server. */
export async function sendInvitationMail(config: InternalConfig, request: Request, origin: string, mail: InvitationMail, i18n: Translator): Promise<void> {
  const send = config.organizations?.invitations?.send;
  if (send) return void (await send(mail, { request, locale: i18n.locale }));
  const resolved = configuredMailer(config, origin);
  if (!resolved?.server) throw new Error('Invitation mails go through an e-mail provider with a `server` (or AUTH_EMAIL_SERVER), or `organizations.invitations.send`.');
  await sendMailThrough(resolved.server, { to: mail.to, from: resolved.from, ...invitationMessage(mail, new URL(origin).host, i18n) });
}
