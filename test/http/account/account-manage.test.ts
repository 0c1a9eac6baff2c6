// The account page's actions over HTTP (PostgresAdapter on PGlite, database sessions): devices named "Chrome on
// Linux" (never the raw user agent) with "this device" marked; another device signed out, then every other one,
// each behind a confirmation step; passkeys listed, renamed and removed (confirmed, the last one kept); a factor's
// removal confirmed first; JWT sessions explained.
import { describe, expect, it } from 'vitest';
import { Credentials } from '../../../src/providers/credentials.js';
import { OAuth } from '../../../src/providers/oauth.js';
import { Passkey } from '../../../src/providers/webauthn.js';
import { useMigratedPGlite } from '../../support/pglite.js';
import { accountApp, accountPage, CHROME_LINUX, FIREFOX_WINDOWS, postForm, sessionIds, signedIn, signIn, userWithPasskeys } from './account-world.js';

const pglite = useMigratedPGlite();

describe('the account page manages devices', () => {
  it('names each device, marks this one, signs another out after a confirmation, then every other one', async () => {
    const t = accountApp(pglite.adapter);
    const { user } = await userWithPasskeys(pglite.adapter, 1);
    const [laptop, phone, tablet] = [t.newClient(), t.newClient(), t.newClient()];
    await signIn(t, laptop, user, CHROME_LINUX);
    await signIn(t, phone, user, FIREFOX_WINDOWS, '203.0.113.7');
    await signIn(t, tablet, user, FIREFOX_WINDOWS);
    const page = await accountPage(laptop);
    expect(page).toContain('Chrome on Linux');
    expect(page).toContain('Firefox on Windows');
    // Where a device signed in from, when the request said.
    expect(page).toMatch(/Firefox on Windows<\/strong><br><small class="muted" data-device-place>from 203\.0\.113\.7<\/small>/);
    expect(page).not.toContain('Mozilla/5.0');
    expect(page).toMatch(/<li data-session data-current>.*Chrome on Linux.*This device/s);
    expect(page).toContain('Sign out of all other devices');

    const phoneId = (await sessionIds(phone)).find((s) => s.current)!.id;
    // The first post only asks: nothing ends yet.
    const ask = await postForm(t, laptop, '/auth/account/sessions', { id: phoneId, step: 'confirm' });
    expect(ask.status).toBe(200);
    const confirm = await ask.text();
    expect(confirm).toContain('Sign out Firefox on Windows?');
    expect(confirm).toMatch(/class="button danger"/);
    expect(confirm).toContain('Cancel');
    expect(await signedIn(phone)).toBe(true);

    const done = await postForm(t, laptop, '/auth/account/sessions', { id: phoneId });
    expect(done.status).toBe(302);
    expect(done.location!.searchParams.get('done')).toBe('signedOutOne');
    expect(await signedIn(phone)).toBe(false);
    expect(await signedIn(tablet)).toBe(true);
    expect(await accountPage(laptop, done.location!)).toContain('That device is signed out.');

    // This device is not signed out through this form (the sign-out page does that).
    const own = (await sessionIds(laptop)).find((s) => s.current)!.id;
    const self = await postForm(t, laptop, '/auth/account/sessions', { id: own });
    expect(self.location!.searchParams.get('error')).toBe('SessionNotFound');
    expect(await signedIn(laptop)).toBe(true);

    const askAll = await postForm(t, laptop, '/auth/account/sessions', { scope: 'others', step: 'confirm' });
    expect(await askAll.text()).toContain('Sign out of every device except this one?');
    expect(await signedIn(tablet)).toBe(true);
    const all = await postForm(t, laptop, '/auth/account/sessions', { scope: 'others' });
    expect(all.location!.searchParams.get('done')).toBe('signedOutOthers');
    expect(await signedIn(tablet)).toBe(false);
    expect(await signedIn(laptop)).toBe(true);
    expect(await accountPage(laptop, all.location!)).toContain('Every other device is signed out.');
  });

  it('names devices in the page language', async () => {
    const t = accountApp(pglite.adapter);
    const { user } = await userWithPasskeys(pglite.adapter, 1);
    const client = t.newClient();
    await signIn(t, client, user, CHROME_LINUX);
    const ja = await (await client.get('/auth/account', { headers: { accept: 'text/html', 'accept-language': 'ja' } })).text();
    expect(ja).toContain('Linux の Chrome');
    expect(ja).toContain('この端末');
  });

  it('JWT sessions: only this device, and the page says what "sign out of all other devices" does', async () => {
    const { user } = await userWithPasskeys(pglite.adapter, 1);
    const plain = accountApp(pglite.adapter, { session: { strategy: 'jwt' } });
    const client = plain.newClient();
    await signIn(plain, client, user, CHROME_LINUX);
    const page = await accountPage(client);
    expect(page).toContain('Chrome on Linux');
    expect(page).toContain('only this device is listed');
    // PostgresAdapter keeps "sessions valid after": the others end at their next check.
    expect(page).toContain('ends every other sign-in the next time it is checked');
    const other = plain.newClient();
    await signIn(plain, other, user, FIREFOX_WINDOWS);
    const res = await postForm(plain, client, '/auth/account/sessions', { scope: 'others' });
    expect(res.location!.searchParams.get('done')).toBe('signedOutOthers');
    expect(await signedIn(client)).toBe(true);
  });
});

describe('the account page manages passkeys', () => {
  it('lists passkeys with name and dates, renames one, removes one after a confirmation, and keeps the last', async () => {
    const t = accountApp(pglite.adapter);
    const { user, credentials } = await userWithPasskeys(pglite.adapter, 2);
    const client = t.newClient();
    await signIn(t, client, user);
    let page = await accountPage(client);
    expect(page.match(/<li data-passkey=/g)).toHaveLength(2);
    expect(page).toContain('added ');
    expect(page).toContain('not used yet');

    const renamed = await postForm(t, client, '/auth/account/passkeys/rename', { id: credentials[0]!, name: '  Work\u0007 laptop  ' });
    expect(renamed.location!.searchParams.get('done')).toBe('passkeyRenamed');
    page = await accountPage(client, renamed.location!);
    expect(page).toContain('<strong data-passkey-name>Work laptop</strong>');
    expect(page).toContain('Passkey renamed.');
    const empty = await postForm(t, client, '/auth/account/passkeys/rename', { id: credentials[0]!, name: '   ' });
    expect(empty.location!.searchParams.get('error')).toBe('InvalidRequest');

    const ask = await postForm(t, client, '/auth/account/passkeys/remove', { id: credentials[0]!, step: 'confirm' });
    expect(ask.status).toBe(200);
    expect(await ask.text()).toContain('Remove the passkey &quot;Work laptop&quot;?');
    expect(await pglite.adapter.listAuthenticatorsByUserId(user.id)).toHaveLength(2);
    const removed = await postForm(t, client, '/auth/account/passkeys/remove', { id: credentials[0]! });
    expect(removed.location!.searchParams.get('done')).toBe('passkeyRemoved');
    expect((await pglite.adapter.listAuthenticatorsByUserId(user.id)).map((a) => a.credentialID)).toEqual([credentials[1]]);
    expect(await pglite.adapter.getAccount(credentials[0]!, 'passkey')).toBeNull();

    // A passkey-only user: the credentials account the sign-in above wrote goes (its own test's shortcut).
    await pglite.db.query(`DELETE FROM accounts WHERE user_id = $1 AND provider = 'credentials'`, [user.id]);
    // The last passkey is the last way this user signs in (no verified address, no other account): kept.
    const last = await postForm(t, client, '/auth/account/passkeys/remove', { id: credentials[1]! });
    expect(last.location!.searchParams.get('error')).toBe('AccessDenied');
    expect(await pglite.adapter.listAuthenticatorsByUserId(user.id)).toHaveLength(1);
  });

  it('says so after a passkey was added, and records when a passkey last signed in', async () => {
    const t = accountApp(pglite.adapter);
    const { user, credentials } = await userWithPasskeys(pglite.adapter, 1);
    const client = t.newClient();
    await signIn(t, client, user);
    await pglite.adapter.updateAuthenticatorCounter(credentials[0]!, 1);
    const page = await (await client.get('/auth/account?done=passkeyAdded', { headers: { accept: 'text/html' } })).text();
    expect(page).toContain('Passkey added. You can now sign in with it.');
    expect(page).toContain('last used ');
    expect(page).not.toContain('not used yet');
    // An unknown `done` says nothing.
    expect(await (await client.get('/auth/account?done=<b>hi</b>', { headers: { accept: 'text/html' } })).text()).not.toContain('data-done');
  });

  it('an adapter without the passkey methods: no buttons, and a post is refused in words, not a 500', async () => {
    const { renameAuthenticator: _r, deleteAuthenticator: _d, ...bare } = pglite.adapter;
    const t = accountApp(pglite.adapter, { adapter: bare });
    const { user, credentials } = await userWithPasskeys(pglite.adapter, 2);
    const client = t.newClient();
    await signIn(t, client, user);
    const page = await accountPage(client);
    expect(page).toContain('data-passkey=');
    expect(page).not.toContain('remove-passkey');
    const res = await postForm(t, client, '/auth/account/passkeys/rename', { id: credentials[0]!, name: 'x' });
    expect(res.status).toBe(302);
    expect(res.location!.searchParams.get('error')).toBeTruthy();
  });
});

describe('the account page says when a provider was linked', () => {
  it('a linked provider with its date; one linked before the date was kept, without one', async () => {
    const idp = OAuth({ id: 'idp', name: 'Company IdP', clientId: 'c', clientSecret: 's', authorization: 'https://idp.invalid/authorize', token: 'https://idp.invalid/token', userinfo: 'https://idp.invalid/userinfo' });
    const t = accountApp(pglite.adapter, { providers: [Credentials({ credentials: { email: { label: 'Email' } }, authorize: async (c) => pglite.adapter.getUserByEmail(String(c.email)) }), Passkey(), idp] });
    const { user } = await userWithPasskeys(pglite.adapter, 1);
    await pglite.adapter.linkAccount({ userId: user.id, type: 'oauth', provider: 'idp', providerAccountId: `sub-${user.id}` });
    const client = t.newClient();
    await signIn(t, client, user);
    const today = new Intl.DateTimeFormat('en', { dateStyle: 'medium' }).format(new Date());
    const page = await accountPage(client);
    expect(page).toMatch(new RegExp(`Company IdP<br><small class="muted" data-linked>linked ${today}`));
    await pglite.db.query(`UPDATE accounts SET created_at = NULL WHERE provider = 'idp' AND user_id = $1`, [user.id]);
    expect(await accountPage(client)).toContain('Company IdP<br><small class="muted" data-linked>linked</small>');
  });
});
