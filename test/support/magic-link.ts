// Magic-link sign-in without a mail server: an e-mail provider that keeps each link it would send, and the two
// browser steps (request the link, open it) for tests that need a user who proved their address.
import { Email, type EmailConfig, type EmailUserConfig, type SendVerificationRequestParams } from '../../src/providers/email.js';
import type { TestAuth } from './auth-app.js';
import type { ClientResponse, TestClient } from './client.js';

export interface Outbox {
  /** One-click links (`confirm: false`): opening the link signs in. */
  provider: EmailConfig;
  /** Every mail "sent", oldest first. */
  sent: SendVerificationRequestParams[];
  /** The newest link sent to `identifier` (the normalised address). */
  linkFor(identifier: string): string;
}

/**
 * An e-mail provider whose mails land in memory.
 *
 * @example
 * const outbox = memoryOutbox();
 * const t = testAuth({ adapter, providers: [outbox.provider] });
 * await signInByLink(t, outbox, 'ada@example.com');
 */
export function memoryOutbox(overrides: EmailUserConfig = {}): Outbox {
  const sent: SendVerificationRequestParams[] = [];
  const provider = Email({ confirm: false, sendVerificationRequest: (params) => void sent.push(params), ...overrides });
  return {
    provider,
    sent,
    linkFor(identifier) {
      const mail = sent.findLast((m) => m.identifier === identifier);
      if (!mail) throw new Error(`no link was sent to ${identifier} (sent to: ${sent.map((m) => m.identifier).join(', ') || 'nobody'})`);
      return mail.url;
    },
  };
}

/** POSTs the e-mail sign-in form as the built-in page would; the answer is the redirect to verify-request. */
export async function requestLink(t: TestAuth, email: string, client: TestClient = t.client): Promise<ClientResponse> {
  const csrfToken = await t.csrfToken(client);
  return client.post('/auth/signin/email', { csrfToken, email, callbackUrl: '/after' });
}

/** Requests a link for `email` and opens the newest one sent, as its owner would: the answer of the link. */
export async function signInByLink(t: TestAuth, outbox: Outbox, email: string, client: TestClient = t.client): Promise<ClientResponse> {
  const before = outbox.sent.length;
  const res = await requestLink(t, email, client);
  const mail = outbox.sent[before];
  if (res.status !== 302 || !mail) throw new Error(`no link was sent for ${email}: ${res.status} ${res.location?.href}`);
  return client.get(mail.url);
}
