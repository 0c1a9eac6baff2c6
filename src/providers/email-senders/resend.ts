// Resend (resend.com) as an e-mail sign-in sender: POST /emails with a Bearer key and a JSON message.
import { Email, type EmailConfig } from '../email.js';
import { endpoint, postToVendor, requireApiKey, signInMail, type EmailApiOptions } from './http-api.js';

/**
 * Magic-link sign-in mailed through Resend's HTTP API (`fetch`, no SDK). The key comes from `apiKey` or
 * `AUTH_RESEND_KEY`; `from` must be on a domain verified with Resend. A refusal ends the sign-in in
 * `EmailSignInError`, with Resend's message in the logged error.
 *
 * @example
 * Resend({ from: 'Example <no-reply@example.com>' }) // AUTH_RESEND_KEY=re_...
 */
export function Resend(options: EmailApiOptions = {}): EmailConfig {
  const { baseUrl = 'https://api.resend.com', timeout, ...rest } = options;
  return Email({
    id: 'resend',
    name: 'Resend',
    async sendVerificationRequest(params) {
      const apiKey = requireApiKey(params, 'Resend');
      const { subject, text, html } = signInMail(params);
      await postToVendor({
        vendor: 'Resend',
        url: endpoint(baseUrl, '/emails'),
        headers: { authorization: `Bearer ${apiKey}` },
        body: { json: { from: params.provider.from, to: [params.identifier], subject, text, html } },
        secret: apiKey,
        timeout,
      });
    },
    ...rest,
  });
}
