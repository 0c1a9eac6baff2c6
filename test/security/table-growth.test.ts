// Tables that would grow forever without pruning: expired magic-link tokens, spent WebAuthn challenge rows, expired
// sessions, lapsed throttle counters and "sessions valid after" times that can end no token are deleted by prune() and
// by the sweep that sign-in requests start.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { prune, PostgresThrottleStore } from '../../src/adapters/postgres/index.js';
import { resolveThrottle } from '../../src/core/throttle/options.js';
import { Throttle } from '../../src/core/throttle/throttle.js';
import { Credentials } from '../../src/providers/credentials.js';
import { SWEEP_INTERVAL_MS } from '../../src/http/sweep.js';
import { testAuth } from '../support/auth-app.js';
import { useMigratedPGlite } from '../support/pglite.js';

const pglite = useMigratedPGlite();
const HOUR = 3600_000;

async function seed(tag: string): Promise<void> {
  const db = pglite.db;
  const past = new Date(Date.now() - HOUR);
  const future = new Date(Date.now() + HOUR);
  await db.query(`INSERT INTO users (id, email) VALUES ($1, $2)`, [`u-${tag}`, `${tag}@example.test`]);
  await db.query(`INSERT INTO verification_token (identifier, token, expires) VALUES ($1, 'old', $2), ($1, 'live', $3)`, [`${tag}@example.test`, past, future]);
  await db.query(`INSERT INTO verification_token (identifier, token, expires) VALUES ('authchart:webauthn-challenge', $1, $2)`, [`spent-${tag}`, past]);
  await db.query(`INSERT INTO sessions (session_token, user_id, expires) VALUES ($1, $2, $3), ($4, $2, $5)`, [`old-${tag}`, `u-${tag}`, past, `live-${tag}`, future]);
  await db.query(`INSERT INTO factor_challenges (id, failures, expires) VALUES ($1, 2, $2), ($3, 1, $4)`, [`old-${tag}`, past, `live-${tag}`, future]);
  // Through the adapter, as "sign out everywhere" sets them: one whose tokens have all expired, one still needed, and
  // one without a keep-until (set before schema version 7), which is never pruned.
  await pglite.adapter.setSessionsValidAfter(`old-${tag}`, new Date(Date.now() - 2 * HOUR), past);
  await pglite.adapter.setSessionsValidAfter(`live-${tag}`, past, future);
  await pglite.adapter.setSessionsValidAfter(`legacy-${tag}`, past);
  // A lapsed counter, written the way the store writes it.
  const throttle = new Throttle(resolveThrottle({ enabled: true, rules: { signIn: { points: 5, duration: 1 } } }, false)!, PostgresThrottleStore(db), 's'.repeat(32), { warn: () => {} });
  await throttle.hit('signIn', `client-${tag}`);
  await db.query(`UPDATE authchart_throttle SET expire = $1`, [Date.now() - HOUR]);
  // Flow store entries, through the adapter: one expired, one live.
  await pglite.adapter.setFlowValue(`flow:t:old-${tag}`, '1', past);
  await pglite.adapter.setFlowValue(`flow:t:live-${tag}`, '1', future);
  // Webhook deliveries: one delivered eight days ago, one delivered now, one still pending since eight days.
  const eightDays = new Date(Date.now() - 8 * 24 * HOUR);
  await pglite.adapter.enqueueWebhooks(['old', 'new', 'pending'].map((k) => ({ recordId: `act_${k}-${tag}`, endpointId: `e-${tag}`, payload: {}, at: eightDays })));
  for (const [k, at] of [['old', eightDays], ['new', new Date()]] as const) {
    const [claimed] = await pglite.adapter.claimWebhookDeliveries({ now: new Date(), leaseUntil: future, limit: 1, claim: `c-${k}`, endpointIds: [`e-${tag}`] });
    await pglite.adapter.markWebhookDelivered(claimed, at);
  }
}

async function counts(tag: string) {
  const one = async (sql: string, params: unknown[]) => (await pglite.db.query<{ n: number }>(sql, params)).rows[0].n;
  return {
    tokens: await one(`SELECT count(*)::int AS n FROM verification_token WHERE identifier = $1 OR token = $2`, [`${tag}@example.test`, `spent-${tag}`]),
    sessions: await one(`SELECT count(*)::int AS n FROM sessions WHERE user_id = $1`, [`u-${tag}`]),
    throttle: await one(`SELECT count(*)::int AS n FROM authchart_throttle`, []),
    challenges: await one(`SELECT count(*)::int AS n FROM factor_challenges WHERE id LIKE $1`, [`%-${tag}`]),
    validAfter: await one(`SELECT count(*)::int AS n FROM sessions_valid_after WHERE user_id LIKE $1`, [`%-${tag}`]),
    flowStore: await one(`SELECT count(*)::int AS n FROM flow_store WHERE key LIKE $1`, [`%-${tag}`]),
    webhooks: await one(`SELECT count(*)::int AS n FROM webhook_outbox WHERE record_id LIKE $1`, [`%-${tag}`]),
  };
}

afterEach(() => vi.useRealTimers());

describe('prune', () => {
  it('deletes every expired row and keeps the live ones', async () => {
    await seed('p1');
    expect(await counts('p1')).toEqual({ tokens: 3, sessions: 2, throttle: 1, challenges: 2, validAfter: 3, flowStore: 2, webhooks: 3 });
    const deleted = await prune(pglite.db);
    expect(deleted).toEqual({ activity: 0, verificationTokens: 2, sessions: 1, throttle: 1, factorChallenges: 1, sessionsValidAfter: 1, flowStore: 1, webhookDeliveries: 1 });
    expect(await counts('p1')).toEqual({ tokens: 1, sessions: 1, throttle: 0, challenges: 1, validAfter: 2, flowStore: 1, webhooks: 2 });
    expect(await pglite.adapter.getSessionsValidAfter('old-p1')).toBeNull();
    expect(await pglite.adapter.getSessionsValidAfter('live-p1')).toBeInstanceOf(Date);
    expect(await pglite.adapter.prune()).toEqual({ activity: 0, verificationTokens: 0, sessions: 0, throttle: 0, factorChallenges: 0, sessionsValidAfter: 0, flowStore: 0, webhookDeliveries: 0 });
  });
});

describe('the sweep', () => {
  const provider = Credentials({ credentials: { username: {} }, authorize: () => null });

  it('runs from sign-in requests once the interval has passed, and at most once per interval', async () => {
    await seed('s1');
    const spy = vi.fn(() => pglite.adapter.prune());
    const t = testAuth({ adapter: { ...pglite.adapter, prune: spy }, session: { strategy: 'jwt' }, providers: [provider] });
    const post = async () => t.client.post('/auth/callback/credentials', { csrfToken: await t.csrfToken(), username: 'x' });
    const start = Date.now();
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(start);
    await post(); // starts the clock
    vi.setSystemTime(start + SWEEP_INTERVAL_MS - 1000);
    await post();
    expect(spy).not.toHaveBeenCalled();
    vi.setSystemTime(start + SWEEP_INTERVAL_MS);
    await post();
    await post();
    expect(spy).toHaveBeenCalledTimes(1);
    vi.useRealTimers();
    await vi.waitFor(async () => expect(await counts('s1')).toEqual({ tokens: 1, sessions: 1, throttle: 0, challenges: 1, validAfter: 2, flowStore: 1, webhooks: 2 }));
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(start + 2 * SWEEP_INTERVAL_MS);
    await post();
    expect(spy).toHaveBeenCalledTimes(2);
  });

  it('a failing prune is a warning, never a failed request', async () => {
    const t = testAuth({ adapter: { ...pglite.adapter, prune: () => Promise.reject(new Error('disk full')) }, session: { strategy: 'jwt' }, providers: [provider] });
    const post = async () => t.client.post('/auth/callback/credentials', { csrfToken: await t.csrfToken(), username: 'x' });
    vi.useFakeTimers({ toFake: ['Date'] });
    await post();
    vi.setSystemTime(Date.now() + SWEEP_INTERVAL_MS);
    const res = await post();
    expect(res.status).toBe(302);
    vi.useRealTimers();
    await vi.waitFor(() => expect(t.logger.warnings).toContain('prune-failed'));
  });
});
