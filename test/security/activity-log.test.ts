// Attacks on the security activity log. (1) No record holds a secret: flows run with known secrets (a password,
// an OAuth state, code and access token, a magic-link token, the session cookie, the CSRF token), and every field
// of every record, as the sink got it and as PostgreSQL keeps it, is searched for each. (2) An anonymous client
// cannot grow the log without bound: a loop of failed sign-ins from one address adds at most
// `activity.anonymousPerMinute` records a minute, whatever the loop's length (throttling off, as it is by default
// outside production).
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ActivityRecord } from '../../src/activity/types.js';
import { Credentials } from '../../src/providers/credentials.js';
import { testAuth } from '../support/auth-app.js';
import { memoryOutbox } from '../support/magic-link.js';
import { offlineOAuthAt } from '../support/offline-oauth.js';
import { useMigratedPGlite } from '../support/pglite.js';

const pg = useMigratedPGlite();
const PASSWORD = 'Tr0ub4dor&3-horse-battery';

afterEach(() => {
  vi.useRealTimers();
});

function collector() {
  const records: ActivityRecord[] = [];
  return { records, sink: { name: 'test', write: (batch: readonly ActivityRecord[]) => void records.push(...batch) } };
}

describe('activity records hold no secret', () => {
  it('after password, OAuth and magic-link sign-ins, failures and sign-outs, no field of any record holds one', async () => {
    const { records, sink } = collector();
    const outbox = memoryOutbox();
    const email = `ada-${Date.now()}@example.com`;
    const t = testAuth({
      adapter: pg.adapter,
      session: { strategy: 'database' },
      activity: { sinks: [sink] },
      providers: [
        Credentials({ credentials: { email: {}, password: {} }, authorize: (c) => (c.password === PASSWORD ? { id: `cred-${String(c.email)}`, email: String(c.email) } : null) }),
        offlineOAuthAt('acme'),
        outbox.provider,
      ],
    });
    const secrets: string[] = [PASSWORD];

    // Credentials: a wrong password, then the right one, then a sign-out.
    let csrfToken = await t.csrfToken();
    secrets.push(csrfToken);
    await t.client.post('/auth/callback/credentials', { csrfToken, email, password: `${PASSWORD}-wrong` });
    await t.client.post('/auth/callback/credentials', { csrfToken, email, password: PASSWORD });
    secrets.push(t.client.cookies.get('authchart.session-token')!);
    await t.client.post('/auth/signout', { csrfToken });

    // OAuth: a forged callback (wrong state), then a real one with a known code.
    const oauth = t.newClient();
    csrfToken = await t.csrfToken(oauth);
    const start = await oauth.post('/auth/signin/acme', { csrfToken, callbackUrl: '/after' });
    const authorize = new URL(start.headers.get('location')!);
    const state = authorize.searchParams.get('state')!;
    const code = 'c0de-0123456789-abcdefghijklmnop';
    secrets.push(state, code, `at-${code}`, authorize.searchParams.get('code_challenge')!);
    // Another browser's sign-in, answered with a forged state: the machine fails it (InvalidCheck).
    const forger = t.newClient();
    await forger.post('/auth/signin/acme', { csrfToken: await t.csrfToken(forger), callbackUrl: '/after' });
    await forger.get(`/auth/callback/acme?code=${code}&state=forged-${state}`);
    const callback = await oauth.get(`/auth/callback/acme?code=${code}&state=${state}`);
    expect(callback.headers.get('location')).toContain('/after');
    secrets.push(oauth.cookies.get('authchart.session-token')!);

    // A magic link.
    const mail = t.newClient();
    csrfToken = await t.csrfToken(mail);
    await mail.post('/auth/signin/email', { csrfToken, email, callbackUrl: '/after' });
    const link = new URL(outbox.linkFor(email));
    secrets.push(link.searchParams.get('token')!);
    await mail.get(link.href);
    secrets.push(mail.cookies.get('authchart.session-token')!);

    const kinds = records.map((r) => r.kind);
    expect(kinds.filter((k) => k === 'signIn.succeeded')).toHaveLength(3);
    expect(kinds.filter((k) => k === 'signIn.failed').length).toBeGreaterThanOrEqual(2);
    expect(kinds).toContain('session.ended');

    const stored = (await pg.db.query('SELECT * FROM activity')).rows;
    expect(stored.length).toBeGreaterThanOrEqual(records.length);
    const everything = [...records.map((r) => JSON.stringify(r)), ...stored.map((r) => JSON.stringify(r))].join('\n');
    for (const secret of secrets) {
      expect(secret.length, 'a real secret').toBeGreaterThan(8);
      expect(everything.includes(secret), `a record holds ${secret.slice(0, 6)}…`).toBe(false);
      // Nor its URL-encoded form (a state or token quoted in a URL).
      expect(everything.includes(encodeURIComponent(secret))).toBe(false);
    }
    // Every field is one the log defines: nothing copied in from a request or an error message.
    const fields = new Set(['id', 'kind', 'at', 'userId', 'actorId', 'organizationId', 'provider', 'method', 'flow', 'sessionHash', 'ip', 'userAgent', 'correlationId', 'reason', 'detail']);
    for (const r of records) {
      for (const key of Object.keys(r)) expect(fields.has(key), key).toBe(true);
      if (r.reason) expect(r.reason).toMatch(/^[A-Za-z]+$/);
      for (const value of Object.values(r.detail ?? {})) expect(String(value).length).toBeLessThan(64);
    }
  });
});

describe('an anonymous client cannot grow the log without bound', () => {
  it('a loop of failed sign-ins from one address adds at most anonymousPerMinute records a minute', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-28T12:00:00Z'));
    const { records, sink } = collector();
    const t = testAuth({
      adapter: pg.adapter,
      activity: { sinks: [sink], anonymousPerMinute: 10 },
      providers: [Credentials({ credentials: { email: {}, password: {} }, authorize: () => null })],
    });
    const csrfToken = await t.csrfToken();
    const attempt = (address: string) =>
      t.client.post('/auth/callback/credentials', { csrfToken, email: 'victim@example.com', password: 'guess' }, { headers: { 'x-forwarded-for': address } });
    for (let i = 0; i < 60; i++) expect((await attempt('198.51.100.7')).status).toBe(302);
    const from = (ip: string) => records.filter((r) => r.ip === ip && r.kind === 'signIn.failed');
    expect(from('198.51.100.7')).toHaveLength(10);
    expect(t.logger.warnings).toContain('activity-flood');
    // Another address is counted apart; the flooding one gets its allowance back only in the next minute.
    for (let i = 0; i < 3; i++) await attempt('203.0.113.50');
    expect(from('203.0.113.50')).toHaveLength(3);
    vi.setSystemTime(new Date('2026-11-28T12:01:00Z'));
    for (let i = 0; i < 30; i++) await attempt('198.51.100.7');
    expect(from('198.51.100.7')).toHaveLength(20);
    // What the sink got is what the database kept.
    const stored = (await pg.db.query<{ n: string }>(`SELECT count(*) AS n FROM activity WHERE ip = '198.51.100.7'`)).rows[0];
    expect(Number(stored.n)).toBe(20);
  });
});
