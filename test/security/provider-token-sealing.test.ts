// Attacks on provider tokens sealed at rest (encryptProviderTokens): someone who can write the accounts table moves
// a sealed token to another account, or alters one. Each is refused with a typed error (RefreshTokenError), never a
// 500, and never opens as the other account's token.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RefreshTokenError } from '../../src/core/errors.js';
import { getAccessToken } from '../../src/http/integrations/access-token.js';
import { TEST_SECRET } from '../support/auth-app.js';
import { tokenTestbed, type TokenTestbed } from '../e2e/tokens/harness.js';

let t: TokenTestbed;
beforeAll(async () => {
  t = await tokenTestbed({ sealWith: [TEST_SECRET] });
});
afterAll(async () => {
  await t?.close();
});

type Row = { access_token: string; refresh_token: string; id_token: string };
const row = async (who: string) => (await t.sql<Row>(`SELECT access_token, refresh_token, id_token FROM accounts WHERE provider_account_id = $1`, [who]))[0]!;

describe('sealed provider tokens under attack', () => {
  it('a sealed token copied to another account, or altered, is refused (RefreshTokenError), never a 500', async () => {
    await t.signIn('bob');
    const cookieAlice = await t.signIn('alice');
    const bob = await row('bob');
    // Unaltered, it works: the refusals below are the attack's doing.
    expect(await getAccessToken(t.request(cookieAlice), t.configs[0], 'oidc')).toBeTruthy();
    // Bob's sealed access token written into Alice's row: bound to Bob's account, it does not open as Alice's.
    await t.sql(`UPDATE accounts SET access_token = $1 WHERE provider_account_id = 'alice'`, [bob.access_token]);
    await expect(getAccessToken(t.request(cookieAlice), t.configs[0], 'oidc')).rejects.toBeInstanceOf(RefreshTokenError);
    const alice = await row('alice');
    const altered = alice.refresh_token.slice(0, -3) + (alice.refresh_token.endsWith('AAA') ? 'BBB' : 'AAA');
    await t.sql(`UPDATE accounts SET access_token = $1 WHERE provider_account_id = 'alice'`, [altered]);
    await expect(getAccessToken(t.request(cookieAlice), t.configs[0], 'oidc')).rejects.toBeInstanceOf(RefreshTokenError);
  });

});
