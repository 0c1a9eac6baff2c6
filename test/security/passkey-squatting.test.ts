// Pre-account hijacking with passkeys: signed out, anyone can register a passkey while typing someone else's
// address. That address must not become the squatter's: the passkey's user owns no address, so the real owner's
// later magic link or OIDC sign-in makes (or finds) the owner's own user, and the squatter's passkey keeps opening
// only the squatter's address-less user. Both orders are played through HTTP on PostgreSQL (PGlite), with a
// software authenticator and a real OpenID Provider.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OIDC } from '../../src/providers/oauth.js';
import { Passkey } from '../../src/providers/webauthn.js';
import { ORIGIN } from '../support/auth-app.js';
import type { TestClient } from '../support/client.js';
import { memoryOutbox, signInByLink } from '../support/magic-link.js';
import { SoftAuthenticator } from '../flows/webauthn/webauthn-authenticator.js';
import { authOn, createWorld, getOptions, passkeyOwner, postCredential, sessionUserId, uniqueEmail, type World, type WorldAuth } from '../flows/webauthn/webauthn-world.js';
import { startOidcProvider, type OidcProviderHarness } from '../e2e/peers/oidc.js';

type Options = { action: string; options: Record<string, any> };

const OWNER_SUB = 'owner-at-op';
const OWNER_EMAIL = 'owner@example.test';

let world: World;
let op: OidcProviderHarness;
beforeAll(async () => {
  [world, op] = await Promise.all([createWorld(), startOidcProvider({ accounts: { [OWNER_SUB]: { email: OWNER_EMAIL, email_verified: true, name: 'The Owner' } } })]);
}, 30_000);
afterAll(async () => {
  await op?.stop();
  await world?.close();
});

const outbox = memoryOutbox();
const oidc = () => OIDC({ id: 'oidc', name: 'Test OP', issuer: op.issuer, clientId: op.clientId, clientSecret: op.clientSecret, checks: ['pkce', 'state', 'nonce'] });
const app = (): WorldAuth => authOn(world, { providers: [Passkey(), outbox.provider, oidc()] });

/** Signed out, registers a new passkey typing `email`; returns the device and the squatter's session client. */
async function squat(t: WorldAuth, email: string): Promise<{ device: SoftAuthenticator; client: TestClient; squatterId: string }> {
  const client = t.newClient();
  const res = await getOptions(client, { action: 'register', email });
  const { action, options } = (await res.json()) as Options;
  expect(action).toBe('register');
  // The address is only the passkey's label in the authenticator.
  expect(options.user).toMatchObject({ name: email, displayName: email });
  const device = new SoftAuthenticator(ORIGIN);
  const done = await postCredential(t, client, 'register', device.register(options as never));
  expect(done.location?.href).toBe(`${ORIGIN}/after`);
  const squatter = await passkeyOwner(world, device.credentialId.toString('base64'));
  return { device, client, squatterId: squatter.id };
}

/** Signs in with the passkey on `device` from a fresh browser; the session's user. */
async function passkeySignIn(t: WorldAuth, device: SoftAuthenticator): Promise<{ id: string | null; email?: string | null }> {
  const client = t.newClient();
  const { options } = (await (await getOptions(client, { action: 'authenticate' })).json()) as Options;
  const res = await postCredential(t, client, 'authenticate', device.authenticate(options as never));
  expect(res.location?.href).toBe(`${ORIGIN}/after`);
  const session = (await (await client.get('/auth/session')).json()) as { user: { id: string; email?: string | null } };
  return { id: session.user.id, email: session.user.email };
}

describe('a passkey registered for an address before its owner arrives', () => {
  it('squat, then the owner signs in by magic link: the owner gets their own user, the passkey still opens only the squatter’s', async () => {
    const t = app();
    const victim = uniqueEmail('victim');
    const { device, squatterId } = await squat(t, victim);

    const ownerClient = t.newClient();
    const landed = await signInByLink(t, outbox, victim, ownerClient);
    expect(landed.location?.href).toBe(`${ORIGIN}/after`);
    const ownerId = await sessionUserId(ownerClient);
    expect(ownerId).not.toBeNull();
    expect(ownerId).not.toBe(squatterId);
    const owner = (await world.adapter.getUserByEmail(victim))!;
    expect(owner.id).toBe(ownerId);
    expect(owner.emailVerified).toBeInstanceOf(Date);
    // The owner's user has no passkey of the squatter's.
    expect(await world.adapter.listAuthenticatorsByUserId(owner.id)).toEqual([]);

    // After the owner's sign-in, the squatter's passkey opens the squatter's user: not the owner's id or address.
    const squatter = await passkeySignIn(t, device);
    expect(squatter.id).toBe(squatterId);
    expect(squatter.id).not.toBe(ownerId);
    expect(squatter.email ?? null).toBeNull();
    expect((await world.adapter.getUser(squatterId))?.email, 'the squatter’s user owns no address').toBeNull();
  });

  it('squat, then the owner signs in with OIDC: no OAuthAccountNotLinked, the owner gets their own user', async () => {
    const t = app();
    const { device, squatterId } = await squat(t, OWNER_EMAIL);

    const ownerClient = t.newClient();
    const csrfToken = await t.csrfToken(ownerClient);
    const start = await ownerClient.post('/auth/signin/oidc', { csrfToken, callbackUrl: '/after' });
    expect(start.location?.origin).toBe(op.issuer);
    const landed = await ownerClient.submit(await op.login(start.location!.href, OWNER_SUB));
    expect(landed.location?.href).toBe(`${ORIGIN}/after`);
    expect(t.logger.errorTypes()).not.toContain('OAuthAccountNotLinked');
    const ownerId = await sessionUserId(ownerClient);
    expect(ownerId).not.toBe(squatterId);
    expect((await world.adapter.getUserByAccount({ provider: 'oidc', providerAccountId: OWNER_SUB }))?.id).toBe(ownerId);
    expect((await world.adapter.getUserByEmail(OWNER_EMAIL))?.id).toBe(ownerId);

    const squatter = await passkeySignIn(t, device);
    expect(squatter.id).toBe(squatterId);
  });

  it('a signed-in user adding a passkey still attaches it to themselves', async () => {
    const t = app();
    const email = uniqueEmail('member');
    const client = t.newClient();
    await signInByLink(t, outbox, email, client);
    const memberId = await sessionUserId(client);
    const { options } = (await (await getOptions(client, { action: 'register' })).json()) as Options;
    expect(options.user).toMatchObject({ name: email });
    const device = new SoftAuthenticator(ORIGIN);
    await postCredential(t, client, 'register', device.register(options as never));
    expect((await passkeyOwner(world, device.credentialId.toString('base64'))).id).toBe(memberId);
    expect((await passkeySignIn(t, device)).id).toBe(memberId);
  });
});
