// Attacks on the account page's actions (PostgresAdapter on PGlite, database sessions): a session id or a passkey
// credential id of another user (IDOR) posted to sign it out, rename it, remove it or show its confirmation page; and
// each action posted without its CSRF token (a cross-site form). Every one changes nothing and tells nothing.
import { describe, expect, it } from 'vitest';
import { accountApp, CHROME_LINUX, FIREFOX_WINDOWS, postForm, sessionIds, signedIn, signIn, userWithPasskeys } from '../http/account/account-world.js';
import { useMigratedPGlite } from '../support/pglite.js';

const pglite = useMigratedPGlite();

async function twoUsers() {
  const t = accountApp(pglite.adapter);
  const alice = await userWithPasskeys(pglite.adapter, 2);
  const mallory = await userWithPasskeys(pglite.adapter, 2);
  const [aliceLaptop, alicePhone, malloryBrowser] = [t.newClient(), t.newClient(), t.newClient()];
  await signIn(t, aliceLaptop, alice.user, CHROME_LINUX);
  await signIn(t, alicePhone, alice.user, FIREFOX_WINDOWS);
  await signIn(t, malloryBrowser, mallory.user, CHROME_LINUX);
  await pglite.adapter.renameAuthenticator(alice.user.id, alice.credentials[0]!, 'Alice laptop key');
  return { t, alice, mallory, aliceLaptop, alicePhone, malloryBrowser };
}

// Each credential's name, in the order of `credentials` (two passkeys made in one millisecond tie on created_at, so the
// adapter's listing order between them is not something to compare).
const names = async (userId: string, credentials: string[]) => {
  const byId = new Map((await pglite.adapter.listAuthenticatorsByUserId(userId)).map((a) => [a.credentialID, a.name ?? null]));
  expect(byId.size).toBe(credentials.length);
  return credentials.map((id) => byId.get(id));
};

describe('another user\'s ids on the account page (IDOR)', () => {
  it('a session id of another user signs nothing out, and its confirmation page is not shown', async () => {
    const { t, alicePhone, malloryBrowser } = await twoUsers();
    const alicePhoneId = (await sessionIds(alicePhone)).find((s) => s.current)!.id;
    const ask = await postForm(t, malloryBrowser, '/auth/account/sessions', { id: alicePhoneId, step: 'confirm' });
    expect(ask.status).toBe(302);
    expect(ask.location!.searchParams.get('error')).toBe('SessionNotFound');
    const res = await postForm(t, malloryBrowser, '/auth/account/sessions', { id: alicePhoneId });
    expect(res.status).toBe(302);
    expect(res.location!.searchParams.get('error')).toBe('SessionNotFound');
    expect(await signedIn(alicePhone)).toBe(true);
    // "every other device" is Mallory's own others only.
    await postForm(t, malloryBrowser, '/auth/account/sessions', { scope: 'others' });
    expect(await signedIn(alicePhone)).toBe(true);
  });

  it('a passkey id of another user is neither renamed, nor removed, nor named on a confirmation page', async () => {
    const { t, alice, malloryBrowser } = await twoUsers();
    const target = alice.credentials[0]!;
    const rename = await postForm(t, malloryBrowser, '/auth/account/passkeys/rename', { id: target, name: 'pwned' });
    expect(rename.location!.searchParams.get('error')).toBe('AccessDenied');
    const ask = await postForm(t, malloryBrowser, '/auth/account/passkeys/remove', { id: target, step: 'confirm' });
    expect(ask.status).toBe(302);
    expect(ask.location!.searchParams.get('error')).toBe('AccessDenied');
    const remove = await postForm(t, malloryBrowser, '/auth/account/passkeys/remove', { id: target });
    expect(remove.location!.searchParams.get('error')).toBe('AccessDenied');
    expect(await names(alice.user.id, alice.credentials)).toEqual(['Alice laptop key', null]);
    expect(await pglite.adapter.getAccount(target, 'passkey')).not.toBeNull();
  });

  it('the adapter methods themselves are keyed by the user: another user\'s credential id changes nothing', async () => {
    const { alice, mallory } = await twoUsers();
    expect(await pglite.adapter.renameAuthenticator(mallory.user.id, alice.credentials[1]!, 'pwned')).toBe(false);
    expect(await pglite.adapter.deleteAuthenticator(mallory.user.id, alice.credentials[1]!)).toBe(false);
    expect(await names(alice.user.id, alice.credentials)).toEqual(['Alice laptop key', null]);
  });
});

describe('account actions need the CSRF token', () => {
  it('a cross-site form signs no device out, renames and removes no passkey', async () => {
    const { alice, aliceLaptop, alicePhone } = await twoUsers();
    const phoneId = (await sessionIds(alicePhone)).find((s) => s.current)!.id;
    const forged = [
      ['/auth/account/sessions', { id: phoneId }],
      ['/auth/account/sessions', { scope: 'others' }],
      ['/auth/account/passkeys/rename', { id: alice.credentials[0]!, name: 'forged' }],
      ['/auth/account/passkeys/remove', { id: alice.credentials[1]! }],
    ] as const;
    for (const [path, fields] of forged) {
      const res = await aliceLaptop.post(path, { ...fields }, { headers: { accept: 'text/html' } });
      expect(res.status, path).not.toBe(200);
      expect(res.location?.searchParams.get('done') ?? null, path).toBeNull();
      expect(res.status, path).toBeLessThan(500);
    }
    expect(await signedIn(alicePhone)).toBe(true);
    expect(await names(alice.user.id, alice.credentials)).toEqual(['Alice laptop key', null]);
  });
});
