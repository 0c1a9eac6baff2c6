// Provider tokens at rest, encrypted with the secret (encryptProviderTokens), against oidc-provider and PostgreSQL:
// the accounts table holds no usable token, getAccessToken and refresh work through the sealed values, a rotated
// secret still opens what the old one sealed (and the next write seals with the new one). Moved or altered sealed
// tokens: test/security/provider-token-sealing.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthConfig } from '../../../src/core/options.js';
import { encryptProviderTokens, SEALED_PREFIX } from '../../../src/flows/tokens/sealed-tokens.js';
import { getAccessToken } from '../../../src/http/integrations/access-token.js';
import { TEST_SECRET } from '../../support/auth-app.js';
import { tokenTestbed, type TokenTestbed } from './harness.js';

const NEW_SECRET = 'a-newer-secret-that-is-long-enough-98765';
let t: TokenTestbed;
beforeAll(async () => {
  t = await tokenTestbed({ sealWith: [TEST_SECRET] });
});
afterAll(async () => {
  await t?.close();
});

type Row = { access_token: string; refresh_token: string; id_token: string };
const row = async (who: string) => (await t.sql<Row>(`SELECT access_token, refresh_token, id_token FROM accounts WHERE provider_account_id = $1`, [who]))[0]!;
const kidOf = (sealed: string) => (JSON.parse(Buffer.from(sealed.slice(SEALED_PREFIX.length).split('.')[0]!, 'base64url').toString()) as { kid: string }).kid;

describe('provider tokens encrypted at rest', () => {
  it('are stored sealed; getAccessToken answers the plain token the provider accepts, and a refresh stores sealed ones', async () => {
    const cookie = await t.signIn('alice');
    const stored = await row('alice');
    expect([stored.access_token, stored.refresh_token].every((v) => v.startsWith(SEALED_PREFIX))).toBe(true);
    // The ID token stays readable (logout needs its sid and the token itself).
    expect(stored.id_token.split('.')).toHaveLength(3);
    const token = await getAccessToken(t.request(cookie), t.configs[0], 'oidc');
    expect(token!.startsWith(SEALED_PREFIX)).toBe(false);
    expect(stored.access_token).not.toContain(token!);
    expect((await fetch(`${t.op.issuer}/me`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    await t.expire('alice');
    const before = t.grants.ok;
    const refreshed = await Promise.all([0, 1, 2, 3].map((i) => getAccessToken(t.request(cookie), t.configs[i % 2]!, 'oidc')));
    expect(t.grants.ok).toBe(before + 1);
    expect(new Set(refreshed).size).toBe(1);
    const after = await row('alice');
    expect(after.access_token.startsWith(SEALED_PREFIX) && after.refresh_token.startsWith(SEALED_PREFIX)).toBe(true);
    expect(after.refresh_token).not.toBe(stored.refresh_token);
  });

  it('with the secret rotated, tokens sealed by the old one are read, and the next refresh seals with the new one', async () => {
    const cookie = await t.signIn('bob');
    const oldKid = kidOf((await row('bob')).refresh_token);
    const rotated: AuthConfig = { ...t.configs[1], secret: [NEW_SECRET, TEST_SECRET], adapter: encryptProviderTokens(t.rawAdapters[1], { secret: [NEW_SECRET, TEST_SECRET] }) };
    // The session cookie was issued under the old secret: it still opens (database sessions: a random token).
    expect(await getAccessToken(t.request(cookie), rotated, 'oidc')).toBeTruthy();
    await t.expire('bob');
    const before = t.grants.ok;
    const token = await getAccessToken(t.request(cookie), rotated, 'oidc');
    expect(t.grants.ok).toBe(before + 1);
    expect(kidOf((await row('bob')).refresh_token)).not.toBe(oldKid);
    // Only the new secret now: still readable.
    const onlyNew: AuthConfig = { ...rotated, secret: NEW_SECRET, adapter: encryptProviderTokens(t.rawAdapters[1], { secret: NEW_SECRET }) };
    expect(await getAccessToken(t.request(cookie), onlyNew, 'oidc')).toBe(token);
  });

  it('a secret shorter than 32 characters is refused at set-up', () => {
    expect(() => encryptProviderTokens(t.rawAdapters[0], { secret: 'short' })).toThrow(TypeError);
  });
});
