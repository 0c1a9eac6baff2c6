// Forward Email as an e-mail sign-in sender: POST /v1/emails, Basic auth with the API key as the user name.
import { Email, type EmailConfig } from '../email.js';
import { endpoint, postToVendor, requireApiKey, signInMail, type EmailApiOptions } from './http-api.js';

/**
 * Magic-link sign-in mailed through Forward Email's outbound e-mail API (`fetch`, no SDK). The key comes from
 * `apiKey` or `AUTH_FORWARDEMAIL_KEY`; `from` must be an alias on a domain set up for outbound SMTP.
 *
 * @example
 * ForwardEmail({ from: 'Example <no-reply@example.com>' }) // AUTH_FORWARDEMAIL_KEY=...
 */
export function ForwardEmail(options: EmailApiOptions = {}): EmailConfig {
  const { baseUrl = 'https://api.forwardemail.net', timeout, ...rest } = options;
  return Email({
    id: 'forwardemail',
    name: 'Forward Email',
    async sendVerificationRequest(params) {
      const apiKey = requireApiKey(params, 'Forward Email');
      const { subject, text, html } = signInMail(params);
      await postToVendor({
        vendor: 'Forward Email',
        url: endpoint(baseUrl, '/v1/emails'),
        // The key is the user name and the password is empty: `key:`.
        headers: { authorization: `Basic ${btoa(`${apiKey}:`)}` },
        body: { json: { from: params.provider.from, to: params.identifier, subject, text, html } },
        secret: apiKey,
        timeout,
      });
    },
    ...rest,
  });
}
