// A sign-in whose transaction rolls back must tell nobody it happened. The activity log's record is written in the
// session's transaction; the sinks that only tell the world (a stream to a SIEM, notice mails) must wait for the
// commit. Here a transactional sink (as the webhook outbox is) fails after the stream sink's turn, so the database
// rolls the sign-in back: the stream must have seen only the failure, no notice may go, and a sign-in that commits
// reaches both.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { activityNotices, type NoticeMail } from '../../src/activity/notices.js';
import { activityStream } from '../../src/activity/stream.js';
import type { ActivityRecord, ActivitySink } from '../../src/activity/types.js';
import { hashNewPassword, Password } from '../../src/providers/password/index.js';
import { testAuth } from '../support/auth-app.js';
import { useMigratedPGlite } from '../support/pglite.js';

const pglite = useMigratedPGlite();
const PASSWORD = 'correct horse battery staple';

async function world(outboxFails: boolean) {
  const streamed: ActivityRecord[] = [];
  const mailed: NoticeMail[] = [];
  const stream = activityStream((records) => void streamed.push(...records));
  const notices = activityNotices({ site: 'example.test', log: pglite.adapter, user: async (id) => pglite.adapter.getUser(id), send: async (mail) => void mailed.push(mail) });
  // Stands for the webhook outbox: it writes in the transaction, and its failure fails it.
  const outbox: ActivitySink = {
    name: 'outbox',
    transactional: true,
    write: () => {
      if (outboxFails) throw new Error('the outbox write failed (injected)');
    },
  };
  const t = testAuth({ adapter: pglite.adapter, session: { strategy: 'database' }, throttle: { enabled: false }, activity: { sinks: [stream, notices, outbox] }, providers: [Password()] });
  const email = `kim-${randomUUID()}@example.test`;
  const { id } = await pglite.adapter.createUser({ id: randomUUID(), email, emailVerified: new Date() });
  await pglite.adapter.setPasswordHash(id, await hashNewPassword(PASSWORD));
  const res = await t.client.post('/auth/callback/password', { csrfToken: await t.csrfToken(), email, password: PASSWORD, callbackUrl: '/home' });
  // Notices go out in the background: give them a moment.
  await new Promise((r) => setTimeout(r, 100));
  const session = (await (await t.client.get('/auth/session')).json()) as { user?: unknown } | null;
  return { res, session, streamed, mailed, id };
}

describe('sinks that tell the world wait for the commit', () => {
  it('a sign-in rolled back reaches neither the stream nor a notice as a success, and leaves no session', async () => {
    const run = await world(true);
    expect(run.res.location?.pathname).toBe('/auth/error');
    expect(run.session?.user).toBeUndefined();
    // What happened is a failed sign-in: the log, and the stream, say that and only that.
    expect((await pglite.adapter.listActivity({ userId: run.id })).records.map((r) => r.kind)).toEqual(['signIn.failed']);
    expect(run.streamed.map((r) => r.kind)).toEqual(['signIn.failed']);
    expect(run.mailed).toEqual([]);
  });

  it('a sign-in that commits reaches both', async () => {
    const run = await world(false);
    expect(run.res.location?.pathname).toBe('/home');
    expect(run.session?.user).toBeDefined();
    expect(run.streamed.map((r) => r.kind)).toEqual(['signIn.succeeded']);
    expect(run.streamed[0]!.userId).toBe(run.id);
    // The user's first sign-in from this browser: a new-device notice.
    expect(run.mailed.map((m) => m.kind)).toEqual(['newDevice']);
  });
});
