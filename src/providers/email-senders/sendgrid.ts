// SendGrid (Twilio) as an e-mail sign-in sender: POST /v3/mail/send with a Bearer key; success is 202, no body.
import { Email, type EmailConfig } from '../email.js';
import { endpoint, mailbox, postToVendor, requireApiKey, signInMail, type EmailApiOptions } from './http-api.js';

/**
 * Magic-link sign-in mailed through SendGrid's v3 Mail Send API (`fetch`, no SDK). The key comes from `apiKey` or
 * `AUTH_SENDGRID_KEY`; `from` (`Name <address>` or an address) must be a verified sender. For SendGrid's EU
 * region set `baseUrl: 'https://api.eu.sendgrid.com'`.
 *
 * @example
 * SendGrid({ from: 'Example <no-reply@example.com>' }) // AUTH_SENDGRID_KEY=SG....
 */
export function SendGrid(options: EmailApiOptions = {}): EmailConfig {
  const { baseUrl = 'https://api.sendgrid.com', timeout, ...rest } = options;
  return Email({
    id: 'sendgrid',
    name: 'SendGrid',
    async sendVerificationRequest(params) {
      const apiKey = requireApiKey(params, 'SendGrid');
      const { subject, text, html } = signInMail(params);
      await postToVendor({
        vendor: 'SendGrid',
        url: endpoint(baseUrl, '/v3/mail/send'),
        headers: { authorization: `Bearer ${apiKey}` },
        body: {
          json: {
            personalizations: [{ to: [{ email: params.identifier }] }],
            from: mailbox(params.provider.from),
            subject,
            // SendGrid wants text/plain before text/html.
            content: [
              { type: 'text/plain', value: text },
              { type: 'text/html', value: html },
            ],
          },
        },
        secret: apiKey,
        timeout,
      });
    },
    ...rest,
  });
}
