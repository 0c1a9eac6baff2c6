// "Send a new code" from the e-mail code page is an event of the paused flow (issue 46), not a new sign-in request.
// Attacks on it: pressing it again and again must count against the per-address mail limit as a new request would
// (without a cooldown nothing else bounds it), and a resend that names another address than the flow's (to have a
// victim's limit counted, or to dodge one's own) is refused without mailing anything, leaving the paused flow as it
// was. Real flow, PGlite adapter, the memory throttle store.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { memoryOutbox } from '../support/magic-link.js';
import { ORIGIN, testAuth, type TestAuth } from '../support/auth-app.js';
import type { TestClient } from '../support/client.js';
import { useMigratedPGlite } from '../support/pglite.js';
import { readForms } from '../e2e/peers/html-form.js';

const pg = useMigratedPGlite();
const LIMIT = 3;

function setup(): { t: TestAuth; outbox: ReturnType<typeof memoryOutbox> } {
  const outbox = memoryOutbox({ confirm: false, code: { resendCooldown: 0 } });
  const t = testAuth({ providers: [outbox.provider], adapter: pg.adapter, throttle: { enabled: true, rules: { emailAddress: { points: LIMIT, duration: 900 } } } });
  return { t, outbox };
}

async function codePage(t: TestAuth, client: TestClient, email: string): Promise<string> {
  const res = await client.post('/auth/signin/email', { csrfToken: await t.csrfToken(client), email, callbackUrl: `${ORIGIN}/dashboard` });
  expect(res.status).toBe(200);
  return res.text();
}

const resendForm = (html: string) => readForms(html).find((f) => f.fields.action === 'resend')!;

describe('"send a new code" under attack', () => {
  it('pressed again and again, it counts against the address like a new request: the limit stops the mail', async () => {
    const { t, outbox } = setup();
    const email = `resend-${randomUUID()}@attack.test`;
    let html = await codePage(t, t.client, email);
    const statuses: number[] = [];
    for (let i = 0; i < LIMIT + 3; i++) {
      const form = resendForm(html);
      const res = await t.client.post(new URL(form.action, ORIGIN), form.fields);
      statuses.push(res.status);
      if (res.status === 200) html = await res.text();
    }
    // The first request and two resends fill the limit of three; every later press is refused with 429.
    expect(statuses).toEqual([200, 200, 429, 429, 429, 429]);
    expect(outbox.sent.filter((m) => m.identifier === email)).toHaveLength(LIMIT);
  });

  it('a resend naming another address is refused, mails nothing, and leaves the paused flow usable', async () => {
    const { t, outbox } = setup();
    const email = `own-${randomUUID()}@attack.test`;
    const victim = `victim-${randomUUID()}@attack.test`;
    const html = await codePage(t, t.client, email);
    const form = resendForm(html);
    expect(form.fields.email).toBe(email);
    const res = await t.client.post(new URL(form.action, ORIGIN), { ...form.fields, email: victim });
    expect(res.location?.href).toBe(`${ORIGIN}/auth/error?error=InvalidRequest`);
    expect(outbox.sent.map((m) => m.identifier)).toEqual([email]);
    // The first code still signs this browser in: the refused event ran nothing.
    const code = readForms(html).find((f) => 'code' in f.fields)!;
    const done = await t.client.post(new URL(code.action, ORIGIN), { ...code.fields, code: outbox.sent[0].code! });
    expect(done.location?.href).toBe(`${ORIGIN}/dashboard`);
  });
});
