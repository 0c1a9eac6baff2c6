// One attempt to deliver one webhook: the body signed with the Standard Webhooks scheme (the `standardwebhooks`
// package, loaded on first use), POSTed with a deadline, no redirect followed and no answer body read. Answers
// success or a short error; never throws.
import type { WebhookDelivery } from '../core/webhook-outbox.js';
import type { ResolvedEndpoint } from './webhook-options.js';

type Signer = { sign(msgId: string, timestamp: Date, payload: string): string };
type WebhookClass = new (secret: string) => Signer;

let webhookClass: Promise<WebhookClass> | undefined;

async function loadWebhook(): Promise<WebhookClass> {
  webhookClass ??= import('standardwebhooks').then((m) => (m as { Webhook?: WebhookClass }).Webhook ?? (m as unknown as { default: { Webhook: WebhookClass } }).default.Webhook);
  return webhookClass;
}

const signers = new WeakMap<ResolvedEndpoint, Signer>();

/** The three Standard Webhooks headers of a body, signed with the endpoint's secret at `at`. */
export async function signatureHeaders(endpoint: ResolvedEndpoint, id: string, at: Date, body: string): Promise<Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string>> {
  let signer = signers.get(endpoint);
  if (!signer) {
    signer = new (await loadWebhook())(endpoint.secret);
    signers.set(endpoint, signer);
  }
  return { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signer.sign(id, at, body) };
}

/** What an attempt came to. */
export type SendResult = { ok: true; status: number } | { ok: false; error: string };

/** Why a fetch failed, in a few words: the error's code when it has one (ECONNREFUSED), never a stack. */
function describe(error: unknown): string {
  const e = error as { name?: string; code?: string; cause?: { code?: string; message?: string } } | null;
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return 'timeout';
  const code = e?.cause?.code ?? e?.code;
  if (typeof code === 'string') return `network error (${code})`;
  return `network error (${e?.cause?.message ?? (error instanceof Error ? error.message : String(error))})`.slice(0, 200);
}

/**
 * POSTs the delivery's payload to the endpoint, signed at `at`. A 2xx answer is a success; anything else, a
 * redirect included (it is not followed: the configured URL is the only place a webhook goes), is a failure. The
 * answer's body is never read, so a receiver cannot make the deliverer hold its answer in memory.
 */
export async function sendWebhook(endpoint: ResolvedEndpoint, delivery: Pick<WebhookDelivery, 'recordId' | 'payload'>, at: Date, timeout: number): Promise<SendResult> {
  try {
    const body = JSON.stringify(delivery.payload);
    const headers = await signatureHeaders(endpoint, delivery.recordId, at, body);
    const response = await fetch(endpoint.url, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', 'user-agent': 'authchart-webhooks', ...headers },
      redirect: 'manual',
      signal: AbortSignal.timeout(timeout),
    });
    response.body?.cancel().catch(() => {});
    if (response.status >= 200 && response.status < 300) return { ok: true, status: response.status };
    return { ok: false, error: response.status >= 300 && response.status < 400 ? `HTTP ${response.status} (redirect not followed)` : `HTTP ${response.status}` };
  } catch (error) {
    return { ok: false, error: describe(error) };
  }
}
