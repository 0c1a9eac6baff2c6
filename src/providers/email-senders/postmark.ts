// Postmark as an e-mail sign-in sender: POST /email with the server token in X-Postmark-Server-Token.
import { Email, type EmailConfig } from '../email.js';
import { endpoint, postToVendor, requireApiKey, signInMail, type EmailApiOptions } from './http-api.js';

export interface PostmarkOptions extends EmailApiOptions {
  /** The message stream to send through (default `outbound`, Postmark's transactional stream). */
  messageStream?: string;
}

/** Postmark answers `ErrorCode: 0` on success; any other code is a refusal, whatever the HTTP status. */
function postmarkRefusal(body: unknown): string | undefined {
  const o = body as { ErrorCode?: unknown; Message?: unknown } | null;
  if (!o || typeof o !== 'object' || typeof o.ErrorCode !== 'number' || o.ErrorCode === 0) return undefined;
  return `ErrorCode ${o.ErrorCode}: ${typeof o.Message === 'string' ? o.Message : 'no message'}`;
}

/**
 * Magic-link sign-in mailed through Postmark's Email API (`fetch`, no SDK). The server token comes from `apiKey`
 * or `AUTH_POSTMARK_KEY`; `from` must be a confirmed sender signature.
 *
 * @example
 * Postmark({ from: 'Example <no-reply@example.com>' }) // AUTH_POSTMARK_KEY=<server token>
 */
export function Postmark(options: PostmarkOptions = {}): EmailConfig {
  const { baseUrl = 'https://api.postmarkapp.com', timeout, messageStream = 'outbound', ...rest } = options;
  return Email({
    id: 'postmark',
    name: 'Postmark',
    async sendVerificationRequest(params) {
      const apiKey = requireApiKey(params, 'Postmark');
      const { subject, text, html } = signInMail(params);
      await postToVendor({
        vendor: 'Postmark',
        url: endpoint(baseUrl, '/email'),
        headers: { 'x-postmark-server-token': apiKey },
        body: { json: { From: params.provider.from, To: params.identifier, Subject: subject, TextBody: text, HtmlBody: html, MessageStream: messageStream } },
        secret: apiKey,
        timeout,
        refusal: postmarkRefusal,
      });
    },
    ...rest,
  });
}
