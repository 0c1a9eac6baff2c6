// Model-based tests of the back-channel logout machine: paths generated from `backchannelLogoutMachine`, each played
// for real (oidc-provider's key and JWKS, PostgreSQL) with a logout token and a database set up so the real run takes
// that path: a valid token, a refused one, a replay, the jti store failing, ending the sessions failing. Each path
// leaves the user's `session.ended` record when, and only when, it ended their sessions.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/core/config.js';
import type { TraceEntry } from '../../../src/devtools/graph.js';
import { backchannelLogoutMachine } from '../../../src/flows/logout/backchannel-machine.js';
import { createAuthRequest } from '../../../src/http/request.js';
import { runBackchannelLogout } from '../../../src/http/routes/backchannel-logout.js';
import { storedSessionToken } from '../../../src/session/session-token.js';
import { createCoverage } from '../../support/flow-coverage.js';
import { modelPaths, type ModelPath } from '../../support/model-paths.js';
import { tokenTestbed, type TokenTestbed } from '../../e2e/tokens/harness.js';
import { logoutClaims, opSigned } from '../../e2e/tokens/logout-tokens.js';
import { done, failed, type Labelled } from '../../support/model-events.js';


const all: Labelled[] = [
  { type: 'LOGOUT_TOKEN', token: 'x', branch: 'posted' },
  done('verifyLogoutToken', 'valid', { iss: 'i', jti: 'j', exp: 0, sub: 's' }),
  failed('verifyLogoutToken', 'forged'),
  done('useJti', 'first use', true),
  done('useJti', 'replay', false),
  failed('useJti', 'jti store fails'),
  done('endSessions', 'ended', 1),
  failed('endSessions', 'ending fails'),
];
const paths = modelPaths(backchannelLogoutMachine, { events: () => all, input: { deps: {} } });
const labels = (p: ModelPath) => p.events.map((e) => (e as Labelled).branch);

let t: TokenTestbed;
const coverage = createCoverage(backchannelLogoutMachine);
beforeAll(async () => {
  t = await tokenTestbed();
  await t.sql(`CREATE FUNCTION model_fail() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN RAISE EXCEPTION 'storage unavailable' USING ERRCODE = '53100'; END $$`);
  await t.sql(`CREATE TRIGGER model_jti_fails BEFORE INSERT ON logout_token_jti FOR EACH ROW WHEN (NEW.jti LIKE 'fail-%') EXECUTE FUNCTION model_fail()`);
  await t.sql(`CREATE TRIGGER model_end_fails BEFORE DELETE ON sessions FOR EACH ROW WHEN (OLD.user_id LIKE 'end-fails-%') EXECUTE FUNCTION model_fail()`);
});
afterAll(async () => {
  console.log(`flow coverage: ${coverage.format()}`);
  await t?.close();
});

/** A user with an account at the OP (`sub`) and a database session; its session cookie's stored token. */
async function seedUser(prefix: string): Promise<{ userId: string; sub: string; stored: string }> {
  const userId = `${prefix}${randomUUID()}`;
  const sub = `sub-${randomUUID()}`;
  const stored = storedSessionToken(randomUUID());
  await t.sql(`INSERT INTO users (id, email) VALUES ($1, $2)`, [userId, `${userId}@example.test`]);
  await t.sql(`INSERT INTO accounts (provider, provider_account_id, user_id, type) VALUES ('oidc', $1, $2, 'oidc')`, [sub, userId]);
  await t.sql(`INSERT INTO sessions (session_token, user_id, expires) VALUES ($1, $2, now() + interval '1 day')`, [stored, userId]);
  return { userId, sub, stored };
}

async function play(path: ModelPath): Promise<{ trace: TraceEntry[]; sessionLeft: boolean; records: unknown[] }> {
  const l = labels(path);
  const { userId, sub, stored } = await seedUser(l.includes('ending fails') ? 'end-fails-' : 'user-');
  const jti = `${l.includes('jti store fails') ? 'fail-' : ''}${randomUUID()}`;
  const token = l.includes('forged') ? await opSigned(logoutClaims(t.op, { sub, aud: 'another-client', jti })) : await opSigned(logoutClaims(t.op, { sub, jti }));
  const config = resolveConfig({ ...t.configs[0], activity: {} });
  const req = () => createAuthRequest(new Request('http://localhost:3000/auth/backchannel-logout/oidc', { method: 'POST' }), config, { body: false });
  const provider = config.providers.find((p) => p.id === 'oidc')!;
  if (l.includes('replay')) await runBackchannelLogout(await req(), provider, token, []);
  const trace: TraceEntry[] = [];
  await runBackchannelLogout(await req(), provider, token, trace);
  const left = await t.sql(`SELECT 1 FROM sessions WHERE session_token = $1`, [stored]);
  const records = await t.sql(`SELECT kind, provider, reason, machine FROM activity WHERE user_id = $1`, [userId]);
  return { trace, sessionLeft: left.length === 1, records };
}

describe('back-channel logout, model paths played against oidc-provider keys and PostgreSQL', () => {
  it('reaches every final state', () => {
    expect([...new Set(paths.map((p) => p.finalState))].sort()).toEqual(['failed.invalidToken', 'failed.replayed', 'failed.unavailable', 'loggedOut']);
  });

  it.each(paths.map((p) => [`${p.description} [${labels(p).join(', ')}]`, p] as const))('%s', async (_name, path) => {
    const { trace, sessionLeft, records } = await play(path);
    coverage.record(trace);
    expect(trace.map((e) => e.event)).toEqual(path.events.map((e) => e.type));
    expect(trace.at(-1)?.to).toBe(path.finalState);
    // Only a logged-out path (or a replay of one that already ended it) ends the session.
    const ended = path.finalState === 'loggedOut' || labels(path).includes('replay');
    expect(sessionLeft).toBe(!ended);
    // The activity log: the user's sessions ended, once, by the provider's logout (a replay's first run wrote it).
    expect(records).toEqual(ended ? [{ kind: 'session.ended', provider: 'oidc', reason: 'backchannelLogout', machine: 'backchannelLogout' }] : []);
  });

  it('covers every state and transition', () => {
    console.log(coverage.format());
    coverage.assertComplete();
  });
});
