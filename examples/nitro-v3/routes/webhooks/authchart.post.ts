// A webhook receiver: authchart's activity webhooks, verified with the standardwebhooks library and handled once
// each. docs/activity-and-webhooks.md shows this file; test/activity/webhook-nitro-receiver.test.ts runs it.
import { defineHandler, HTTPError } from 'nitro/h3';
import { Webhook } from 'standardwebhooks';

let webhook: Webhook | undefined;
// Deliveries are at least once: remember which ids were handled. Here in memory; in an app, a table with a
// unique key on the id, written in the same transaction as whatever the webhook does.
const handled = new Set<string>();

interface ActivityWebhook {
  type: string;
  timestamp: string;
  data: { id: string; kind: string; userId: string | null; ip?: string | null };
}

export default defineHandler(async (event) => {
  // Records are small: refuse a large body before reading it.
  if (Number(event.req.headers.get('content-length') ?? 0) > 64 * 1024) throw new HTTPError({ status: 413 });
  const body = await event.req.text();
  let payload: ActivityWebhook;
  try {
    webhook ??= new Webhook(process.env.AUTHCHART_WEBHOOK_SECRET!);
    // Checks the signature and that webhook-timestamp is within 5 minutes (an old webhook replayed fails).
    payload = webhook.verify(body, Object.fromEntries(event.req.headers)) as ActivityWebhook;
  } catch {
    throw new HTTPError({ status: 401, statusText: 'Invalid webhook signature' });
  }
  if (handled.has(payload.data.id)) return { received: true, duplicate: true };
  handled.add(payload.data.id);
  if (payload.type === 'signIn.failed') {
    // e.g. count failures per address in your SIEM
  }
  return { received: true, duplicate: false };
});
