// Model-based tests of the provider-token refresh machine: paths generated from `tokenRefreshMachine`, each one
// played for real through getAccessToken against a real OpenID Provider (refresh-token rotation on) and a real
// PostgreSQL, set up so the real run takes exactly that path: the database state (lock held by another caller,
// stale view, failing writes by trigger) and the provider's answer (a live, bogus or wrongly authenticated refresh).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresAdapter } from '../../../src/adapters/postgres/index.js';
import { migrate, migrations } from '../../../src/adapters/postgres/schema.js';
import type { AuthConfig } from '../../../src/core/options.js';
import type { TraceEntry } from '../../../src/devtools/graph.js';
import { tokenRefreshMachine } from '../../../src/flows/tokens/machine.js';
import { RefreshRefused, tokenRefreshDefaults } from '../../../src/flows/tokens/steps.js';
import { getAccessToken } from '../../../src/http/integrations/access-token.js';
import { OIDC } from '../../../src/providers/oauth.js';
import { storedSessionToken } from '../../../src/session/session-token.js';
import { createCoverage } from '../../support/flow-coverage.js';
import { modelPaths, type ModelPath } from '../../support/model-paths.js';
import { serverSchema, type TestDatabase } from '../../session/database-harness.js';
import { DATABASE, tokenTestbed, type TokenTestbed } from '../../e2e/tokens/harness.js';
import { done, failed, type Labelled } from '../../support/model-events.js';

const NOW = 1_800_000_000_000;

// The outputs only steer the model's guards; the label says how the real run is set up to answer the same way.
const mine = { provider: 'oidc', providerAccountId: 'm', userId: 'u', type: 'oidc', access_token: 'a1', refresh_token: 'r1' };
const state = (account: Record<string, unknown> | null, extra: Record<string, unknown> = {}) => ({ account, lockedUntil: null, rotatedAt: null, previousRefreshTokenHash: null, failedAt: null, ...extra });
const expired = { ...mine, expires_at: NOW / 1000 - 10 };
const rotatedRow = { ...mine, access_token: 'a2', refresh_token: 'r2', expires_at: NOW / 1000 + 3600 };

function events(): Labelled[] {
  return [
    { type: 'ACCESS_TOKEN', branch: 'ask' },
    done('loadTokens', 'no account', state(null)),
    done('loadTokens', 'fresh token', state({ ...mine, expires_at: NOW / 1000 + 3600 })),
    done('loadTokens', 'expired, no refresh token', state({ ...mine, refresh_token: null, expires_at: NOW / 1000 - 10 })),
    done('loadTokens', 'expired', state(expired)),
    failed('loadTokens', 'read fails'),
    done('claimRefresh', 'rotated meanwhile', { ...state(rotatedRow), claimed: true }),
    done('claimRefresh', 'refused before', { ...state(expired, { failedAt: new Date(NOW) }), claimed: true }),
    done('claimRefresh', 'claimed', { ...state(expired), claimed: true }),
    done('claimRefresh', 'held by another', { ...state(expired, { lockedUntil: new Date(NOW + 5000) }), claimed: false }),
    failed('claimRefresh', 'claim fails'),
    done('releaseLock', 'released', undefined),
    failed('releaseLock', 'release fails'),
    done('awaitRelease', 'holder rotated', state(rotatedRow)),
    done('awaitRelease', 'holder refused', state(expired, { failedAt: new Date(NOW) })),
    done('awaitRelease', 'lock lapsed', state(expired)),
    failed('awaitRelease', 'wait times out'),
    done('refreshGrant', 'provider rotates', rotatedRow),
    // The machine tells a refusal by its class: the model uses the real one.
    failed('refreshGrant', 'provider refuses', null),
    failed('refreshGrant', 'provider unreachable'),
    done('recordRefusal', 'recorded', undefined),
    failed('recordRefusal', 'record fails'),
  ];
}

const all = events().map((e) => (e.branch === 'provider refuses' ? { ...e, error: new RefreshRefused('invalid_grant') } : e));

/** Paths with one takeover allowed, and with none (so "the lock lapsed and no takeover is left" is reached too). */
function pathsWith(takeovers: number): (ModelPath & { takeovers: number })[] {
  return modelPaths(tokenRefreshMachine, {
    events: () => all,
    input: { deps: { now: () => NOW, options: { ...tokenRefreshDefaults, takeovers } } },
  }).map((p) => ({ ...p, takeovers }));
}
/**
 * After a takeover, the second claim is played only as taken: its other answers are the same transitions as the
 * first claim's, covered by the paths without a takeover (the database cannot be told to answer a caller's
 * second claim differently from its first).
 */
const afterTakeoverClaimed = (p: ModelPath) => {
  const l = p.events.map((e) => (e as Labelled).branch);
  const i = l.indexOf('lock lapsed');
  return i === -1 || l[i + 1] === 'claimed';
};
const paths = [
  ...pathsWith(1).filter(afterTakeoverClaimed),
  ...pathsWith(0).filter((p) => p.finalState === 'failed.unavailable' && p.events.some((e) => (e as Labelled).branch === 'lock lapsed')),
];

const labels = (path: ModelPath) => path.events.map((e) => (e as Labelled).branch);

let t: TokenTestbed;
let old: TestDatabase & { pool: import('pg').Pool }; // a schema without the token_refresh table (version 7 and the sessions column): reading the refresh state fails
let liveCookie: string;
const coverage = createCoverage(tokenRefreshMachine);

beforeAll(async () => {
  t = await tokenTestbed();
  // Failures inside PostgreSQL, keyed by the account or user id the path asks for.
  await t.sql(`CREATE FUNCTION model_fail() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION 'storage unavailable' USING ERRCODE = '53100'; END $$`);
  await t.sql(`CREATE TRIGGER model_claim_fails BEFORE INSERT ON token_refresh FOR EACH ROW
    WHEN (NEW.provider_account_id LIKE '%claim-fails%') EXECUTE FUNCTION model_fail()`);
  await t.sql(`CREATE TRIGGER model_release_fails BEFORE UPDATE ON token_refresh FOR EACH ROW
    WHEN (NEW.provider_account_id LIKE '%release-fails%' AND NEW.holder IS NULL) EXECUTE FUNCTION model_fail()`);
  await t.sql(`CREATE TRIGGER model_record_fails BEFORE UPDATE ON sessions FOR EACH ROW
    WHEN (NEW.user_id LIKE '%record-fails%' AND NEW.token_error IS NOT NULL) EXECUTE FUNCTION model_fail()`);
  // Another instance rotating between this caller's read and its claim: its tokens land as the claim is made.
  await t.sql(`CREATE FUNCTION model_rotate_meanwhile() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN UPDATE accounts SET access_token = 'rotated-elsewhere', refresh_token = 'rotated-elsewhere-rt',
      expires_at = extract(epoch from now())::bigint + 3600
      WHERE provider = NEW.provider AND provider_account_id = NEW.provider_account_id; RETURN NEW; END $$`);
  await t.sql(`CREATE TRIGGER model_rotated_meanwhile BEFORE INSERT ON token_refresh FOR EACH ROW
    WHEN (NEW.provider_account_id LIKE '%rotated-meanwhile%') EXECUTE FUNCTION model_rotate_meanwhile()`);
  old = await serverSchema(DATABASE, async (pool) => {
    await migrate(pool, migrations.slice(0, 7));
    await pool.query(`ALTER TABLE sessions ADD COLUMN token_error TEXT`);
    // What the session read names since (schema version 14's active organization and the memberships it joins): only
    // the token table is missing.
    await pool.query(`ALTER TABLE sessions ADD COLUMN organization_id TEXT`);
    await pool.query(`CREATE TABLE memberships (organization_id TEXT NOT NULL, user_id TEXT NOT NULL, role TEXT NOT NULL, created_at TIMESTAMPTZ NOT NULL DEFAULT now(), PRIMARY KEY (organization_id, user_id))`);
  });
  liveCookie = await t.signIn('alice');
});
afterAll(async () => {
  console.log(`flow coverage: ${coverage.format()}`);
  await old?.close();
  await t?.close();
});

/** Seeds a user, a session and (unless the path has none) an account; the session cookie. */
async function seed(sql: TokenTestbed['sql'], path: ModelPath, accountId: string, provider: string): Promise<{ cookie: string; userId: string }> {
  const l = labels(path);
  const userId = `user-${l.includes('record fails') ? 'record-fails-' : ''}${randomUUID()}`;
  const token = randomUUID();
  await sql(`INSERT INTO users (id, email) VALUES ($1, $2)`, [userId, `${userId}@example.test`]);
  await sql(`INSERT INTO sessions (session_token, user_id, expires) VALUES ($1, $2, now() + interval '1 day')`, [storedSessionToken(token), userId]);
  if (!l.includes('no account')) {
    const fresh = l.includes('fresh token');
    await sql(
      `INSERT INTO accounts (provider, provider_account_id, user_id, type, access_token, refresh_token, expires_at)
       VALUES ($1, $2, $3, 'oidc', 'stored-access', $4, extract(epoch from now())::bigint + $5)`,
      [provider, accountId, userId, l.includes('expired, no refresh token') ? null : 'bogus-refresh-token', fresh ? 3600 : -10],
    );
  }
  return { cookie: `authchart.session-token=${token}`, userId };
}

/** Sets up the database and provider for the path, runs getAccessToken once, and returns its trace. */
async function play(path: ModelPath & { takeovers: number }): Promise<{ trace: TraceEntry[]; result: unknown }> {
  const l = labels(path);
  const trace: TraceEntry[] = [];
  const timing = { takeovers: path.takeovers, waitMs: l.includes('wait times out') ? 300 : 5000, pollMs: 20 };
  if (l.includes('read fails')) {
    const config: AuthConfig = { ...t.configs[0], adapter: PostgresAdapter(old.pool) };
    const { cookie } = await seed(old.sql as TokenTestbed['sql'], path, `model-${randomUUID()}`, 'oidc');
    const result = await getAccessToken(t.request(cookie), config, 'oidc', { ...timing, trace }).catch((e: unknown) => e);
    return { trace, result };
  }
  let cookie: string;
  let accountId: string;
  const provider = l.includes('provider unreachable') ? 'oidc-wrong-secret' : 'oidc';
  if (l.includes('provider rotates')) {
    // A live refresh token, from a real sign-in at the OP.
    cookie = liveCookie;
    accountId = 'alice';
    await t.expire('alice');
  } else {
    const tags = ['claim fails', 'release fails', 'rotated meanwhile'].filter((x) => l.includes(x)).map((x) => x.replace(' ', '-'));
    accountId = `model-${tags.join('-')}-${randomUUID()}`;
    ({ cookie } = await seed(t.sql, path, accountId, provider));
  }
  const key = [provider, accountId];
  // Another caller sent this refresh token and recorded the provider's refusal after this caller read the tokens.
  if (l.includes('refused before')) await t.sql(`INSERT INTO token_refresh (provider, provider_account_id, failed_at) VALUES ($1, $2, now())`, key);
  const held = l.includes('held by another');
  if (held) {
    // Another caller holds the lock: it lapses (no takeover left, or one), or its holder finishes.
    const ms = l.includes('wait times out') ? 60_000 : 400;
    await t.sql(`INSERT INTO token_refresh (provider, provider_account_id, holder, locked_until) VALUES ($1, $2, 'other', now() + $3 * interval '1 millisecond')
      ON CONFLICT (provider, provider_account_id) DO UPDATE SET holder = 'other', locked_until = EXCLUDED.locked_until`, [...key, ms]);
    if (l.includes('holder rotated') || l.includes('holder refused')) {
      const rotated = l.includes('holder rotated');
      setTimeout(() => {
        void (async () => {
          if (rotated) await t.sql(`UPDATE accounts SET access_token = 'from-the-holder', expires_at = extract(epoch from now())::bigint + 3600 WHERE provider = $1 AND provider_account_id = $2`, key);
          await t.sql(`UPDATE token_refresh SET holder = NULL, locked_until = NULL, failed_at = ${rotated ? 'NULL' : 'now()'} WHERE provider = $1 AND provider_account_id = $2`, key);
        })();
      }, 150);
    }
  }
  const config = provider === 'oidc' ? t.configs[0] : wrongSecretConfig();
  const result = await getAccessToken(t.request(cookie), config, provider, { ...timing, trace }).catch((e: unknown) => e);
  if (held) await t.sql(`UPDATE token_refresh SET holder = NULL, locked_until = NULL WHERE provider = $1 AND provider_account_id = $2`, key);
  return { trace, result };
}

let wrong: AuthConfig | undefined;
function wrongSecretConfig(): AuthConfig {
  wrong ??= {
    ...t.configs[0],
    providers: [OIDC({ id: 'oidc-wrong-secret', name: 'Wrong secret', issuer: t.op.issuer, clientId: t.op.clientId, clientSecret: 'not-the-secret-0123456789', checks: ['pkce', 'state', 'nonce'] })],
  };
  return wrong;
}

describe('token refresh, the model', () => {
  it('reaches every final state', () => {
    expect([...new Set(paths.map((p) => p.finalState))].sort()).toEqual(['failed.notLinked', 'failed.reauthRequired', 'failed.unavailable', 'fresh', 'rotated']);
  });
});

describe('token refresh, model paths played against oidc-provider and PostgreSQL', () => {
  it.each(paths.map((p) => [`${p.description} [${labels(p).join(', ')}]${p.takeovers === 0 ? ' (no takeover)' : ''}`, p] as const))('%s', async (_name, path) => {
    const { trace, result } = await play(path);
    coverage.record(trace);
    // The real run took the model's path, transition by transition.
    expect(trace.map((e) => e.event)).toEqual(path.events.map((e) => e.type));
    expect(trace.at(-1)?.to).toBe(path.finalState);
    if (path.finalState === 'fresh' || path.finalState === 'rotated') expect(typeof result).toBe('string');
    else expect(result).toMatchObject({ type: path.finalState === 'failed.notLinked' ? 'AccountNotLinked' : 'RefreshTokenError' });
  });

  it('covers every state and transition', () => {
    console.log(coverage.format());
    coverage.assertComplete();
  });
});
