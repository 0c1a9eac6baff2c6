// `authchart webhooks verify`: checks one received webhook's Standard Webhooks signature with the reference library,
// as a receiver would, so an operator can tell "wrong secret" from "body changed on the way" from "too old".
import { Webhook, WebhookVerificationError } from 'standardwebhooks';

/** The headers and body of one received webhook, and the secret to check it with. */
export interface VerifyInput {
  secret: string;
  id: string;
  timestamp: string;
  signature: string;
  body: string;
}

/** Verified: the parsed body. Refused: why, in the library's words. */
export type VerifyResult = { ok: true; payload: unknown } | { ok: false; reason: string };

/**
 * Verifies like a receiver: the signature over `id.timestamp.body`, and a timestamp within 5 minutes of now.
 *
 * @example
 * verifyWebhook({ secret: 'whsec_…', id: 'act_…', timestamp: '1767225600', signature: 'v1,…', body })
 */
export function verifyWebhook(input: VerifyInput): VerifyResult {
  let webhook: Webhook;
  try {
    webhook = new Webhook(input.secret);
  } catch {
    return { ok: false, reason: 'The secret is not a Standard Webhooks secret ("whsec_" then base64).' };
  }
  try {
    const payload = webhook.verify(input.body, { 'webhook-id': input.id, 'webhook-timestamp': input.timestamp, 'webhook-signature': input.signature }, { jsonParse: false });
    let parsed: unknown = input.body;
    try {
      parsed = JSON.parse(input.body);
    } catch {}
    return { ok: true, payload: payload ?? parsed };
  } catch (error) {
    if (error instanceof WebhookVerificationError) return { ok: false, reason: error.message };
    return { ok: false, reason: `The webhook could not be checked: ${error instanceof Error ? error.message : String(error)}` };
  }
}
