// A passkey's provider named on the account page (issue 46): the AAGUID its authenticator reports at registration is
// stored (PostgresAdapter schema 19) and mapped to a readable name ("Google Password Manager"), from authchart's
// list of widely used providers or the app's own `authenticatorNames`. An all-zero or malformed AAGUID names nothing.
import { beforeAll, describe, expect, it } from 'vitest';
import { authenticatorName, storedAaguid } from '../../../src/flows/webauthn/authenticator-names.js';
import { Credentials } from '../../../src/providers/credentials.js';
import { Passkey } from '../../../src/providers/webauthn.js';
import { ORIGIN } from '../../support/auth-app.js';
import { SoftAuthenticator } from './webauthn-authenticator.js';
import { authOn, createWorld, getOptions, postCredential, seedUser, signInAs, type World } from './webauthn-world.js';

const GOOGLE = 'ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4';
const OWN = '0f0e0d0c-0b0a-4908-8706-050403020100';
const bytes = (aaguid: string) => Buffer.from(aaguid.replace(/-/g, ''), 'hex');

describe('authenticator names by AAGUID', () => {
  it('names known providers, lets the app add and override names, and names nothing for none or garbage', () => {
    expect(authenticatorName(GOOGLE)).toBe('Google Password Manager');
    expect(authenticatorName(GOOGLE.toUpperCase())).toBe('Google Password Manager');
    expect(authenticatorName(OWN)).toBeNull();
    expect(authenticatorName(OWN, { [OWN.toUpperCase()]: 'Acme Vault' })).toBe('Acme Vault');
    expect(authenticatorName(GOOGLE, { [GOOGLE]: 'Our phones' })).toBe('Our phones');
    expect(storedAaguid('00000000-0000-0000-0000-000000000000')).toBeNull();
    for (const bad of ['', 'not-a-guid', `${GOOGLE}x`, '<script>', null, undefined]) expect(authenticatorName(bad)).toBeNull();
    // A name never comes from the prototype chain.
    expect(authenticatorName('00000000-0000-0000-0000-00000000000a', {})).toBeNull();
  });
});

describe('the account page names a passkey by its provider', () => {
  let world: World;
  beforeAll(async () => {
    world = await createWorld();
  });

  async function register(config: Parameters<typeof authOn>[1], aaguid?: string) {
    const t = authOn(world, config);
    const user = await seedUser(world);
    await signInAs(t, t.client, user.email!);
    const device = new SoftAuthenticator(ORIGIN);
    if (aaguid) device.aaguid = bytes(aaguid);
    const { options } = (await (await getOptions(t.client, { action: 'register' })).json()) as { options: never };
    const res = await postCredential(t, t.client, 'register', device.register(options));
    expect(res.location?.href).toBe(`${ORIGIN}/after`);
    const [stored] = await world.adapter.listAuthenticatorsByUserId(user.id);
    const page = await (await t.client.get('/auth/account', { headers: { accept: 'text/html' } })).text();
    return { stored, page, t };
  }

  it('stores the reported AAGUID and shows the provider as the passkey name until the user names it', async () => {
    const { stored, page, t } = await register({}, GOOGLE);
    expect(stored.aaguid).toBe(GOOGLE);
    expect(page).toMatch(/<strong data-passkey-name>Google Password Manager<\/strong>/);
    // Named by its owner, the provider is said beside the name.
    const csrfToken = await t.csrfToken();
    await t.client.post('/auth/account/passkeys/rename', { csrfToken, id: stored.credentialID, name: 'Work phone' });
    const renamed = await (await t.client.get('/auth/account', { headers: { accept: 'text/html' } })).text();
    expect(renamed).toMatch(/<strong data-passkey-name>Work phone<\/strong><br><small class="muted" data-passkey-authenticator>Google Password Manager<\/small>/);
  });

  it('an all-zero AAGUID stores none and names no provider; an app names its own', async () => {
    const none = await register({});
    expect(none.stored.aaguid).toBeNull();
    expect(none.page).not.toContain('data-passkey-authenticator');
    const credentials = Credentials({ credentials: { email: { label: 'Email' } }, authorize: async (c) => world.adapter.getUserByEmail(String(c.email)) });
    const own = await register({ providers: [Passkey({ authenticatorNames: { [OWN]: 'Acme Vault' } }), credentials] }, OWN);
    expect(own.stored.aaguid).toBe(OWN);
    expect(own.page).toContain('Acme Vault');
  });
});
