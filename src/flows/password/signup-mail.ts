// The sign-up's two mails: the proof of the address (a link and a code) and, to an address that has an account, the
// notice that someone tried to sign up with it. Sent by the app's `signUp.send`, else through the configuration's
// e-mail provider's server, in the language of the request that asked.
import { lineMail } from '../../core/line-mail.js';
import type { Translator } from '../../core/messages/translator.js';
import { configuredMailer, sendMailThrough } from '../../providers/email.js';
import type { PasswordConfig, SignUpMail, SignUpSettings } from '../../providers/password/provider.js';
import type { FlowDeps } from '../runtime/contract.js';

/** The provider's sign-up settings. */
export function settingsOf(deps: FlowDeps): SignUpSettings {
  const signUp = (deps.provider as unknown as PasswordConfig).password.signUp;
  // The registry gives no sign-up flow to a provider with `signUp: false`; this only narrows the type.
  if (!signUp) throw new TypeError('This Password provider has sign-up turned off.');
  return signUp;
}

/** The subject, text and HTML of a sign-up mail, in the reader's language; every value escaped in the HTML. */
export function signUpMessage(mail: SignUpMail, host: string, i18n: Translator): { subject: string; text: string; html: string } {
  let subject: string;
  let lines: string[];
  if (mail.kind === 'verify') {
    subject = i18n.t('signupMail.subject', { host });
    lines = [i18n.t('signupMail.open', { host }), mail.url, '', i18n.t('signupMail.code'), mail.code, '', i18n.t('signupMail.expires', { date: i18n.dateTime(mail.expires) }), i18n.t('signupMail.ignore')];
  } else {
    subject = i18n.t('signupMail.existingSubject', { host });
    lines = [i18n.t('signupMail.existingBody', { host }), mail.signInUrl, '', i18n.t('signupMail.existingReset')];
  }
  return lineMail(subject, lines, i18n);
}

/** Sends a sign-up mail: the app's `send`, else the default message through the e-mail provider's server. */
export async function sendSignUpMail(deps: FlowDeps, mail: SignUpMail, messages: Translator): Promise<void> {
  const { send } = settingsOf(deps);
  const { req } = deps;
  if (send) return void (await send(mail, { request: req.request, locale: messages.locale, messages, theme: req.config.theme }));
  const resolved = configuredMailer(req.config, req.origin);
  if (!resolved?.server) throw new Error('Sign-up mails go through an e-mail provider with a `server` (or AUTH_EMAIL_SERVER), or the Password provider\'s `signUp.send`.');
  await sendMailThrough(resolved.server, { to: mail.to, from: resolved.from, ...signUpMessage(mail, new URL(req.origin).host, messages) });
}
