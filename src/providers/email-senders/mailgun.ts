// Mailgun as an e-mail sign-in sender: POST /v3/{domain}/messages, Basic `api:<key>`, a multipart form body.
import { Email, type EmailConfig } from '../email.js';
import { endpoint, mailbox, postToVendor, requireApiKey, signInMail, type EmailApiOptions } from './http-api.js';

export interface MailgunOptions extends EmailApiOptions {
  /** Where the sending domain was created: `US` (api.mailgun.net, default) or `EU` (api.eu.mailgun.net). */
  region?: 'US' | 'EU';
  /** The Mailgun sending domain (default: the domain of `from`). */
  domain?: string;
}

const REGIONS = { US: 'https://api.mailgun.net', EU: 'https://api.eu.mailgun.net' } as const;

/**
 * Magic-link sign-in mailed through Mailgun's Messages API (`fetch`, no SDK). The key comes from `apiKey` or
 * `AUTH_MAILGUN_KEY`; the sending domain is `domain` or the domain of `from`. `baseUrl` overrides `region`.
 *
 * @example
 * Mailgun({ from: 'Example <no-reply@mg.example.com>', region: 'EU' }) // AUTH_MAILGUN_KEY=key-...
 */
export function Mailgun(options: MailgunOptions = {}): EmailConfig {
  const { region = 'US', domain, baseUrl, timeout, ...rest } = options;
  if (!(region in REGIONS)) throw new TypeError(`Mailgun: region must be "US" or "EU", not ${JSON.stringify(region)}.`);
  const base = baseUrl ?? REGIONS[region];
  return Email({
    id: 'mailgun',
    name: 'Mailgun',
    async sendVerificationRequest(params) {
      const apiKey = requireApiKey(params, 'Mailgun');
      const sendingDomain = domain ?? mailbox(params.provider.from).email.split('@')[1];
      if (!sendingDomain) throw new TypeError(`Mailgun: no sending domain; set \`domain\`, or a \`from\` address with one (got ${JSON.stringify(params.provider.from)}).`);
      const { subject, text, html } = signInMail(params);
      const form = new FormData();
      form.set('from', params.provider.from);
      form.set('to', params.identifier);
      form.set('subject', subject);
      form.set('text', text);
      form.set('html', html);
      await postToVendor({
        vendor: 'Mailgun',
        url: endpoint(base, `/v3/${encodeURIComponent(sendingDomain)}/messages`),
        headers: { authorization: `Basic ${btoa(`api:${apiKey}`)}` },
        body: { form },
        secret: apiKey,
        timeout,
      });
    },
    ...rest,
  });
}
