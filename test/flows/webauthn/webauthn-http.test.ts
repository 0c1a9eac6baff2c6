// The WebAuthn provider and routes through the HTTP layer, on PostgreSQL (PGlite), with a software
// authenticator: what is stored, what the options say, the events, the checks around the flow cookie, bad
// input, and the configuration errors raised at start.
import { Script } from 'node:vm';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { resolveConfig } from '../../../src/core/config.js';
import { DuplicateConditionalUI, ExperimentalFeatureNotEnabled, MissingAdapter, MissingWebAuthnAutocomplete } from '../../../src/core/errors.js';
import type { AuthConfig } from '../../../src/core/options.js';
import { forgetSpentChallenges, spendChallenge, SPENT_CHALLENGE_IDENTIFIER } from '../../../src/flows/webauthn/challenges.js';
import { chooseCeremony } from '../../../src/flows/webauthn/steps.js';
import { Passkey, relyingPartyFor, WebAuthn } from '../../../src/providers/webauthn.js';
import { ORIGIN, recordingLogger, TEST_SECRET } from '../../support/auth-app.js';
import { SoftAuthenticator } from './webauthn-authenticator.js';
import {
  authOn,
  createWorld,
  FLOW_COOKIE,
  flowCookieOf,
  getOptions,
  lastFlowState,
  lastTailState,
  passkeyOwner,
  postCredential,
  REDIRECT_ELSEWHERE,
  seedPasskey,
  seedUser,
  SESSION_COOKIE,
  sessionUserId,
  signInAs,
  uniqueEmail,
  type World,
  type WorldAuth,
} from './webauthn-world.js';

type Options = { action: string; options: Record<string, any> };

let world: World;
beforeAll(async () => {
  world = await createWorld();
});
afterAll(async () => {
  await world?.close();
});
afterEach(() => {
  vi.useRealTimers();
});

const sessionWrites = (lines: readonly string[]) => lines.filter((l) => l.startsWith(`${SESSION_COOKIE}=`) && !/Max-Age=0/i.test(l));

/** Registers a new user with a new device through the routes; returns the instance, its client and the device. */
async function registerNewUser(t = authOn(world), email = uniqueEmail('reg')) {
  const device = new SoftAuthenticator(ORIGIN);
  const { options } = (await (await getOptions(t.client, { action: 'register', email })).json()) as Options;
  const res = await postCredential(t, t.client, 'register', device.register(options as never));
  return { t, device, email, res };
}

describe('registration and authentication', () => {
  it('registers a new user (who owns no address): user, account and authenticator stored, events in order, session issued', async () => {
    const seen: string[] = [];
    const t = authOn(world, { events: { createUser: () => void seen.push('createUser'), linkAccount: () => void seen.push('linkAccount'), signIn: (m) => void seen.push(`signIn:${m.isNewUser}`) } });
    const { device, email, res } = await registerNewUser(t);
    expect(res.status).toBe(302);
    expect(res.location?.href).toBe(`${ORIGIN}/after`);
    expect(sessionWrites(res.setCookie)).toHaveLength(1);
    expect(seen).toEqual(['createUser', 'linkAccount', 'signIn:true']);

    const credentialID = device.credentialId.toString('base64');
    const user = await passkeyOwner(world, credentialID);
    // The typed address only labelled the passkey: it stays free for whoever proves it.
    expect(user).toMatchObject({ email: null, emailVerified: null });
    expect(await world.adapter.getUserByEmail(email)).toBeNull();
    expect(await world.adapter.getAccount(credentialID, 'passkey')).toMatchObject({ type: 'webauthn', providerAccountId: credentialID, userId: user.id });
    expect(await world.adapter.getAuthenticator(credentialID)).toMatchObject({ userId: user.id, providerAccountId: credentialID, counter: 0, transports: 'internal' });
    expect(await sessionUserId(t.client)).toBe(user.id);
  });

  it('signs in with the passkey, stores the counter and refuses a counter that goes back', async () => {
    const { device } = await registerNewUser();
    const owner = await passkeyOwner(world, device.credentialId.toString('base64'));
    const t = authOn(world);
    for (const expected of [1, 2]) {
      const client = t.newClient();
      const { options } = (await (await getOptions(client, { action: 'authenticate' })).json()) as Options;
      const res = await postCredential(t, client, 'authenticate', device.authenticate(options as never));
      expect(res.location?.href).toBe(`${ORIGIN}/after`);
      expect(await sessionUserId(client)).toBe(owner.id);
      expect((await world.adapter.getAuthenticator(device.credentialId.toString('base64')))?.counter).toBe(expected);
    }
    const client = t.newClient();
    const { options } = (await (await getOptions(client, { action: 'authenticate' })).json()) as Options;
    const res = await postCredential(t, client, 'authenticate', device.authenticate(options as never, { counter: 1 }));
    expect(res.location?.searchParams.get('error')).toBe('WebAuthnVerificationError');
    expect(sessionWrites(res.setCookie)).toEqual([]);
  });

  it('accepts the credential as a JSON body too', async () => {
    const { device } = await registerNewUser();
    const t = authOn(world);
    const { options } = (await (await getOptions(t.client, { action: 'authenticate' })).json()) as Options;
    const csrfToken = await t.csrfToken();
    const res = await t.client.post('/auth/callback/passkey', JSON.stringify({ action: 'authenticate', data: device.authenticate(options as never), csrfToken }), { json: true });
    expect(res.status).toBe(302);
    expect(sessionWrites(res.setCookie)).toHaveLength(1);
  });

  it('adds a second passkey to the signed-in user, excluding the first, and signs in with either', async () => {
    const { t, device: first, email } = await registerNewUser();
    const user = await passkeyOwner(world, first.credentialId.toString('base64'));
    const { action, options } = (await (await getOptions(t.client, { action: 'register' })).json()) as Options;
    expect(action).toBe('register');
    expect(options.excludeCredentials).toEqual([{ id: first.id, type: 'public-key', transports: ['internal'] }]);
    const second = new SoftAuthenticator(ORIGIN);
    const res = await postCredential(t, t.client, 'register', second.register(options as never));
    expect(res.location?.href).toBe(`${ORIGIN}/after`);
    expect((await world.adapter.listAuthenticatorsByUserId(user.id)).map((a) => a.credentialID).sort()).toEqual(
      [first, second].map((d) => d.credentialId.toString('base64')).sort(),
    );
    for (const device of [first, second]) {
      const client = t.newClient();
      // Signed out, the address is not looked up: no credentials are listed, the device offers its own.
      const { options: request } = (await (await getOptions(client, { action: 'authenticate', email })).json()) as Options;
      expect(request.allowCredentials).toBeUndefined();
      await postCredential(t, client, 'authenticate', device.authenticate(request as never));
      expect(await sessionUserId(client)).toBe(user.id);
    }
  });

  it('refuses another user’s passkey while signed in (AccountNotLinked)', async () => {
    const { device } = await registerNewUser();
    const t = authOn(world);
    const someoneElse = await seedUser(world);
    await signInAs(t, t.client, someoneElse.email!);
    const { options } = (await (await getOptions(t.client, { action: 'authenticate' })).json()) as Options;
    const res = await postCredential(t, t.client, 'authenticate', device.authenticate(options as never));
    expect(lastTailState(t), 'refused by the sign-in tail').toBe('failed.accountNotLinked');
    expect(res.location?.pathname).toBe('/auth/signin');
    expect(res.location?.searchParams.get('error')).toBe('AccountNotLinked');
    expect(sessionWrites(res.setCookie)).toEqual([]);
  });

  it('signs in with JWT sessions on an adapter as well', async () => {
    const { device } = await registerNewUser(authOn(world, { session: { strategy: 'jwt' } }));
    const owner = await passkeyOwner(world, device.credentialId.toString('base64'));
    const t = authOn(world, { session: { strategy: 'jwt' } });
    const { options } = (await (await getOptions(t.client, { action: 'authenticate' })).json()) as Options;
    const res = await postCredential(t, t.client, 'authenticate', device.authenticate(options as never));
    expect(sessionWrites(res.setCookie)[0]).toMatch(/^authchart\.session-token=ey/);
    expect(await sessionUserId(t.client)).toBe(owner.id);
  });
});

// After a verified ceremony the flow ends `authenticated` and the standard sign-in tail (src/flows/signin) runs in
// the same request: find the passkey's user, the signIn callback, the passkey rules (resolvePasskeyUser), the
// session. These branches were states of the webauthn machine before; here they are played after a real ceremony.
describe('after the ceremony: the sign-in tail', () => {
  const AT = {
    accessDenied: `${ORIGIN}/auth/error?error=AccessDenied`,
    // Names the passkey provider, so the sign-in page explains that a passkey is added by the account signed in.
    accountNotLinked: `${ORIGIN}/auth/signin?error=AccountNotLinked&provider=passkey`,
    configuration: `${ORIGIN}/auth/error?error=Configuration`,
  };

  interface Case {
    ceremony: 'register' | 'authenticate';
    /** Signed in when the options are asked for (as the member registering, or as the passkey's owner). */
    signedIn?: boolean;
    jwt?: boolean;
    /** What changes between the options and the callback. */
    meanwhile?: (t: WorldAuth, client: ReturnType<WorldAuth['newClient']>, member: { email: string | null }) => Promise<void>;
    signIn?: 'deny' | 'redirect' | 'throw';
    refuseJwt?: boolean;
    fault?: string;
    tail: string;
    location: string;
    logged: string[];
    /** Whether a registration stored the passkey (only once the tail resolved the user). */
    stored?: boolean;
  }

  const signInAsMember: Case['meanwhile'] = (t, client, member) => signInAs(t, client, member.email!);
  const signOut: Case['meanwhile'] = async (t, client) => {
    await client.post('/auth/signout', { csrfToken: await t.csrfToken(client) });
  };

  const cases: [string, Case][] = [
    ['registration, signIn callback says no: AccessDenied, nothing stored', { ceremony: 'register', signIn: 'deny', tail: 'failed.accessDenied', location: AT.accessDenied, logged: ['AccessDenied'] }],
    ['registration, signIn callback redirects: no session, nothing stored', { ceremony: 'register', signIn: 'redirect', tail: 'redirected', location: REDIRECT_ELSEWHERE, logged: [] }],
    ['registration, signIn callback throws: AccessDenied', { ceremony: 'register', signIn: 'throw', tail: 'failed.accessDenied', location: AT.accessDenied, logged: ['AccessDenied'] }],
    [
      'registration for a new user, someone signed in meanwhile: AccountNotLinked',
      { ceremony: 'register', meanwhile: signInAsMember, tail: 'failed.accountNotLinked', location: AT.accountNotLinked, logged: ['AccountNotLinked'] },
    ],
    [
      'registration for the signed-in user, who signed out meanwhile: AccountNotLinked',
      { ceremony: 'register', signedIn: true, meanwhile: signOut, tail: 'failed.accountNotLinked', location: AT.accountNotLinked, logged: ['AccountNotLinked'] },
    ],
    [
      'registration, the authenticator cannot be stored: AdapterError, no user left behind',
      { ceremony: 'register', fault: 'createAuthenticator', tail: 'failed.callbackRoute', location: AT.configuration, logged: ['AdapterError'] },
    ],
    [
      'registration, the jwt callback refuses the token: AccessDenied (the passkey is stored)',
      { ceremony: 'register', jwt: true, refuseJwt: true, tail: 'resolved', location: AT.accessDenied, logged: ['AccessDenied'], stored: true },
    ],
    [
      'registration, the session row cannot be written: AdapterError (the passkey is stored)',
      { ceremony: 'register', fault: 'createSession', tail: 'resolved', location: AT.configuration, logged: ['AdapterError'], stored: true },
    ],
    ['authentication, signIn callback says no: AccessDenied', { ceremony: 'authenticate', signIn: 'deny', tail: 'failed.accessDenied', location: AT.accessDenied, logged: ['AccessDenied'] }],
    ['authentication, signIn callback redirects: no session', { ceremony: 'authenticate', signIn: 'redirect', tail: 'redirected', location: REDIRECT_ELSEWHERE, logged: [] }],
    ['authentication, signIn callback throws: AccessDenied', { ceremony: 'authenticate', signIn: 'throw', tail: 'failed.accessDenied', location: AT.accessDenied, logged: ['AccessDenied'] }],
    [
      'authentication while another user signed in meanwhile: AccountNotLinked',
      { ceremony: 'authenticate', meanwhile: signInAsMember, tail: 'failed.accountNotLinked', location: AT.accountNotLinked, logged: ['AccountNotLinked'] },
    ],
    [
      "authentication, the passkey's account cannot be read: AdapterError",
      { ceremony: 'authenticate', fault: 'getAccount', tail: 'failed.callbackRoute', location: AT.configuration, logged: ['AdapterError'] },
    ],
    [
      'authentication, the jwt callback refuses the token: AccessDenied',
      { ceremony: 'authenticate', jwt: true, refuseJwt: true, tail: 'resolved', location: AT.accessDenied, logged: ['AccessDenied'] },
    ],
    [
      'authentication, the session row cannot be written: AdapterError',
      { ceremony: 'authenticate', signedIn: true, fault: 'createSession', tail: 'resolved', location: AT.configuration, logged: ['AdapterError'] },
    ],
  ];

  it.each(cases)('%s', async (_name, c) => {
    const t = authOn(world, c.jwt ? { session: { strategy: 'jwt' } } : {});
    const client = t.newClient();
    const member = await seedUser(world);
    const owner = await seedUser(world);
    const device = new SoftAuthenticator(ORIGIN);
    if (c.ceremony === 'authenticate') await seedPasskey(world, owner, device);
    if (c.signedIn) await signInAs(t, client, (c.ceremony === 'authenticate' ? owner : member).email!);
    const email = c.ceremony === 'register' && !c.signedIn ? uniqueEmail('tail') : undefined;
    const { options } = (await (await getOptions(client, { action: c.ceremony, email })).json()) as Options;
    const data = c.ceremony === 'register' ? device.register(options as never) : device.authenticate(options as never);
    await c.meanwhile?.(t, client, member);

    const users = async () => Number((await world.db.query<{ n: string }>('SELECT count(*) AS n FROM users')).rows[0].n);
    const usersBefore = await users();
    const errorsBefore = t.logger.errorTypes().length;
    if (c.signIn) t.knobs.signIn = c.signIn;
    t.knobs.refuseJwt = c.refuseJwt === true;
    if (c.fault) world.faults.add(c.fault);
    let res: Awaited<ReturnType<typeof postCredential>>;
    try {
      res = await postCredential(t, client, c.ceremony, data);
    } finally {
      world.faults.clear();
    }

    expect(lastFlowState(t), 'the flow itself ended authenticated').toBe('authenticated');
    expect(lastTailState(t)).toBe(c.tail);
    expect(res.location?.href).toBe(c.location);
    expect(t.logger.errorTypes().slice(errorsBefore)).toEqual(c.logged);
    expect(sessionWrites(res.setCookie), 'no session').toEqual([]);
    if (c.ceremony === 'register') {
      const credentialID = device.credentialId.toString('base64');
      const stored = c.stored === true;
      expect(Boolean(await world.adapter.getAuthenticator(credentialID)), 'authenticator stored').toBe(stored);
      expect(Boolean(await world.adapter.getAccount(credentialID, 'passkey')), 'account stored').toBe(stored);
      // A new user is made (in the same transaction as the passkey) only for a signed-out registration that got that far.
      expect(await users()).toBe(usersBefore + (stored && !c.signedIn ? 1 : 0));
    }
  });
});

describe('the challenge and the flow cookie', () => {
  async function pendingAuthentication() {
    const owner = await seedUser(world);
    // A device that never counts (as many synced passkeys): only the spent challenge stops a replay.
    const device = new SoftAuthenticator(ORIGIN);
    await seedPasskey(world, owner, device);
    const t = authOn(world);
    const { options } = (await (await getOptions(t.client, { action: 'authenticate' })).json()) as Options;
    return { t, device, data: device.authenticate(options as never, { counter: 0 }), cookie: t.client.cookies.get(FLOW_COOKIE)! };
  }

  /** Sends a captured flow cookie and assertion again from `attacker`: refused as a replay, no session. */
  async function expectReplayRefused(t: ReturnType<typeof authOn>, attacker: ReturnType<typeof t.newClient>, data: unknown, cookie: string) {
    attacker.cookies.set(FLOW_COOKIE, cookie, new URL(ORIGIN));
    const replay = await postCredential(t, attacker, 'authenticate', data as never);
    expect(replay.location?.searchParams.get('error')).toBe('Configuration');
    expect(t.logger.errorTypes().at(-1)).toBe('InvalidCheck');
    expect(t.logger.errors.at(-1)?.message).toMatch(/used before/);
    expect(sessionWrites(replay.setCookie)).toEqual([]);
  }

  it('refuses a replayed assertion with the same flow cookie (InvalidCheck), even without a counter', async () => {
    const { t, data, cookie } = await pendingAuthentication();
    expect((await postCredential(t, t.client, 'authenticate', data)).location?.href).toBe(`${ORIGIN}/after`);
    await expectReplayRefused(t, t.newClient(), data, cookie);
  });

  /** Rows recording spent challenges, by hashed challenge. */
  async function spentRows(): Promise<string[]> {
    const { rows } = await world.db.query<{ token: string }>('SELECT token FROM verification_token WHERE identifier = $1', [SPENT_CHALLENGE_IDENTIFIER]);
    return rows.map((r) => r.token);
  }

  it('refuses a replay sent to another instance, whose memory of spent challenges is empty, through the database', async () => {
    const { t, data, cookie } = await pendingAuthentication();
    expect((await postCredential(t, t.client, 'authenticate', data)).location?.href).toBe(`${ORIGIN}/after`);
    // Another process of the same app: nothing spent in its memory, the same database.
    forgetSpentChallenges();
    const other = authOn(world);
    const attacker = other.newClient();
    // Twice: detecting a replay uses up the record, which must be put back for the next attempt.
    for (let attempt = 0; attempt < 2; attempt++) {
      forgetSpentChallenges();
      await expectReplayRefused(other, attacker, data, cookie);
    }
  });

  it('records a challenge in the database only once its response verified, and only as a hash', async () => {
    const before = await spentRows();
    // A made-up response under a genuine flow cookie: refused, and nothing written.
    const forgedFlow = await pendingAuthentication();
    const forged = { ...forgedFlow.data, response: { ...forgedFlow.data.response, signature: Buffer.from('not a signature').toString('base64url') } };
    const refused = await postCredential(forgedFlow.t, forgedFlow.t.client, 'authenticate', forged);
    expect(refused.location?.searchParams.get('error')).not.toBeNull();
    expect(forgedFlow.t.logger.errorTypes().at(-1)).toBe('WebAuthnVerificationError');
    expect(await spentRows()).toEqual(before);

    const { t, data } = await pendingAuthentication();
    const challenge = JSON.parse(Buffer.from(data.response.clientDataJSON, 'base64url').toString()).challenge as string;
    expect((await postCredential(t, t.client, 'authenticate', data)).location?.href).toBe(`${ORIGIN}/after`);
    const added = (await spentRows()).filter((r) => !before.includes(r));
    expect(added).toHaveLength(1);
    expect(added[0]).not.toContain(challenge);
  });

  it.each(['useVerificationToken', 'createVerificationToken'])('fails closed when recording the challenge fails (%s): no session, not a 500', async (method) => {
    const { t, data } = await pendingAuthentication();
    world.faults.add(method);
    try {
      const res = await postCredential(t, t.client, 'authenticate', data);
      expect(res.status).toBe(302);
      expect(res.location?.href).toBe(`${ORIGIN}/auth/error?error=Configuration`);
      expect(t.logger.errorTypes()).toEqual(['AdapterError']);
      expect(sessionWrites(res.setCookie)).toEqual([]);
    } finally {
      world.faults.delete(method);
    }
  });

  it('deletes the flow cookie once used, so the browser cannot send it twice', async () => {
    const { t, data } = await pendingAuthentication();
    const res = await postCredential(t, t.client, 'authenticate', data);
    expect(res.setCookie.some((l) => l.startsWith(`${FLOW_COOKIE}=;`))).toBe(true);
    const again = await postCredential(t, t.client, 'authenticate', data);
    expect(t.logger.errorTypes().at(-1)).toBe('InvalidCheck');
    expect(again.location?.searchParams.get('error')).toBe('Configuration');
  });

  it.each([
    ['tampered', (c: string) => c.slice(0, -4) + (c.endsWith('AAAA') ? 'BBBB' : 'AAAA')],
    ['missing', () => undefined],
  ])('refuses a %s flow cookie (InvalidCheck)', async (_name, change) => {
    const { t, data, cookie } = await pendingAuthentication();
    const changed = change(cookie);
    if (changed === undefined) t.client.cookies.delete(FLOW_COOKIE);
    else t.client.cookies.set(FLOW_COOKIE, changed, new URL(ORIGIN));
    const res = await postCredential(t, t.client, 'authenticate', data);
    expect(t.logger.errorTypes()).toEqual(['InvalidCheck']);
    expect(sessionWrites(res.setCookie)).toEqual([]);
  });

  it('refuses an answer after the ceremony timeout (machine) and after the cookie expiry (cookie)', async () => {
    for (const minutes of [6, 16]) {
      vi.useFakeTimers({ toFake: ['Date'] });
      const { t, data } = await pendingAuthentication();
      vi.setSystemTime(Date.now() + minutes * 60_000);
      const res = await postCredential(t, t.client, 'authenticate', data);
      expect(t.logger.errorTypes(), `${minutes} min`).toEqual(['InvalidCheck']);
      expect(t.logger.errors[0].message).toMatch(minutes === 6 ? /challenge expired/ : /flow cookie/);
      expect(sessionWrites(res.setCookie)).toEqual([]);
      vi.useRealTimers();
    }
  });

  it('refuses a registration answer to an authentication flow', async () => {
    const { t, data } = await pendingAuthentication();
    await postCredential(t, t.client, 'register', data);
    expect(t.logger.errors.at(-1)?.message).toMatch(/not waiting for "REGISTER"/);
  });

  it("keeps each provider's flow to itself: another provider's callback finds no flow, and the pending one still completes", async () => {
    const { device } = await pendingAuthentication();
    const both = authOn(world, { providers: [Passkey(), WebAuthn({ enableConditionalUI: false })] });
    const { options } = (await (await getOptions(both.client, { action: 'authenticate' })).json()) as Options;
    const data = device.authenticate(options as never, { counter: 0 });
    const pending = both.client.cookies.get(FLOW_COOKIE)!;
    expect(pending).toBeTruthy();
    const res = await both.client.post('/auth/callback/webauthn', { action: 'authenticate', data: JSON.stringify(data), csrfToken: await both.csrfToken() });
    expect(both.logger.errorTypes()).toEqual(['InvalidCheck']);
    expect(both.logger.errors[0].message).toMatch(/missing/);
    expect(sessionWrites(res.setCookie)).toEqual([]);
    // The passkey flow was neither cleared nor spent.
    expect(res.setCookie.some((l) => l.startsWith(`${FLOW_COOKIE}=`))).toBe(false);
    expect(both.client.cookies.get(FLOW_COOKIE)).toBe(pending);
    expect((await postCredential(both, both.client, 'authenticate', data)).location?.href).toBe(`${ORIGIN}/after`);
  });

  it("refuses a cookie of another provider planted under this provider's name (InvalidCheck: it cannot be opened)", async () => {
    const { data, cookie } = await pendingAuthentication();
    const both = authOn(world, { providers: [Passkey(), WebAuthn({ enableConditionalUI: false })] });
    both.client.cookies.set(flowCookieOf('webauthn'), cookie, new URL(ORIGIN));
    const res = await both.client.post('/auth/callback/webauthn', { action: 'authenticate', data: JSON.stringify(data), csrfToken: await both.csrfToken() });
    expect(both.logger.errorTypes()).toEqual(['InvalidCheck']);
    expect(both.logger.errors[0].message).toMatch(/could not be opened/);
    expect(res.setCookie.some((l) => l.startsWith(`${flowCookieOf('webauthn')}=;`))).toBe(true);
    expect(sessionWrites(res.setCookie)).toEqual([]);
  });

  it('requires the CSRF token on the callback (MissingCSRF), and leaves the pending flow alone', async () => {
    const { t, data } = await pendingAuthentication();
    const res = await t.client.post('/auth/callback/passkey', { action: 'authenticate', data: JSON.stringify(data) });
    expect(res.location?.pathname).toBe('/auth/signin');
    expect(res.location?.searchParams.get('error')).toBe('MissingCSRF');
    expect((await postCredential(t, t.client, 'authenticate', data)).location?.href).toBe(`${ORIGIN}/after`);
  });

  it('forgets spent challenges once they would be refused as expired anyway', () => {
    expect(spendChallenge('c-1', 1_000, 0)).toBe(true);
    expect(spendChallenge('c-1', 1_000, 500)).toBe(false);
    expect(spendChallenge('c-2', 5_000, 2_000)).toBe(true);
    expect(spendChallenge('c-1', 3_000, 2_000)).toBe(true);
  });
});

describe('bad input', () => {
  it.each([
    ['?action=delete', 'Invalid action'],
    ['?action=register&email=not-an-address', 'Invalid email'],
    [`?action=register&email=${'a'.repeat(320)}@example.test`, 'Invalid email'],
  ])('answers 400 JSON to %s', async (query, message) => {
    const t = authOn(world);
    const res = await t.client.get(`/auth/webauthn-options/passkey${query}`);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'InvalidRequest', message: expect.stringContaining(message) });
    expect(res.setCookie.some((l) => l.startsWith(`${FLOW_COOKIE}=`))).toBe(false);
  });

  it.each([
    ['GET', '/auth/webauthn-options/nope', 'InvalidProvider'],
    ['GET', '/auth/webauthn-options/credentials', 'UnknownAction'],
    ['GET', '/auth/callback/passkey', 'UnknownAction'],
  ])('%s %s redirects to the Configuration page (%s logged)', async (_m, path, type) => {
    const t = authOn(world);
    const res = await t.client.get(path);
    expect(res.status).toBe(302);
    expect(res.location?.searchParams.get('error')).toBe('Configuration');
    expect(t.logger.errorTypes()).toEqual([type]);
  });

  it.each([
    ['an unknown action', { action: 'delete', data: '{}' }, 'UnknownAction'],
    ['data that is not JSON', { action: 'authenticate', data: '{"id":' }, 'WebAuthnVerificationError'],
    ['a credential id that is not base64url', { action: 'authenticate', data: JSON.stringify({ id: 'a b' }) }, 'WebAuthnVerificationError'],
    ['an empty registration', { action: 'register', data: '{}' }, 'WebAuthnVerificationError'],
  ])('ends %s in its typed error, without a session', async (_name, body, type) => {
    const t = authOn(world);
    await getOptions(t.client, { action: body.action === 'register' ? 'register' : 'authenticate', email: body.action === 'register' ? uniqueEmail('bad') : undefined });
    const res = await postCredential(t, t.client, body.action, body.data);
    expect(res.status).toBe(302);
    expect(t.logger.errorTypes()).toEqual([type]);
    expect(sessionWrites(res.setCookie)).toEqual([]);
  });

  it('answers the options as a redirect-as-data to the script (X-Auth-Return-Redirect) when the flow refuses', async () => {
    const t = authOn(world);
    // Signed out, a registration needs an address to label the passkey with.
    const res = await t.client.get('/auth/webauthn-options/passkey?action=register', { headers: { 'x-auth-return-redirect': '1' } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ url: `${ORIGIN}/auth/error?error=InvalidRequest` });
    expect(t.logger.errorTypes()).toEqual(['InvalidRequest']);
  });
});

describe('options', () => {
  it('derives the relying party from the request and lets the provider override it', () => {
    expect(relyingPartyFor({}, 'https://app.example.com:8443')).toEqual({ id: 'app.example.com', name: 'app.example.com:8443', origin: 'https://app.example.com:8443' });
    expect(relyingPartyFor({ relyingParty: { name: 'My App', id: 'example.com' } }, 'https://app.example.com')).toEqual({ id: 'example.com', name: 'My App', origin: 'https://app.example.com' });
  });

  it('asks for resident keys and user verification with Passkey, and uses the relying party', async () => {
    const t = authOn(world);
    const res = await getOptions(t.client, { action: 'register', email: uniqueEmail('opts') });
    expect(res.headers.get('cache-control')).toContain('no-store');
    const { options } = (await res.json()) as Options;
    expect(options).toMatchObject({
      rp: { id: 'localhost', name: 'localhost:3000' },
      authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'required' },
      attestation: 'none',
      timeout: 300_000,
    });
    const request = (await (await getOptions(t.newClient(), { action: 'authenticate' })).json()) as Options;
    expect(request.options).toMatchObject({ rpId: 'localhost', userVerification: 'required' });
    expect(request.options.allowCredentials).toBeUndefined();
  });

  it('chooses the ceremony by who is signed in and what was asked, never by the address', () => {
    const user = { id: 'u', email: 'u@example.test', emailVerified: null };
    const signedIn = { sessionUser: user };
    const signedOut = { sessionUser: null };
    expect(chooseCeremony({ action: 'authenticate' }, signedIn)).toBe('authenticate');
    expect(chooseCeremony({ action: 'authenticate', email: user.email }, signedOut)).toBe('authenticate');
    expect(chooseCeremony({ action: 'register' }, signedIn)).toBe('register');
    expect(chooseCeremony({ action: 'register', email: 'n@x.test' }, signedOut)).toBe('register');
    expect(chooseCeremony({ action: 'register', email: user.email }, signedOut)).toBe('register');
    expect(chooseCeremony({ action: 'register' }, signedOut)).toBe('invalidRequest');
    expect(chooseCeremony({}, signedIn)).toBe('invalidRequest');
    // Without an action, signed out is a sign-in: registering is asked for, never guessed from an unknown address.
    expect(chooseCeremony({ email: 'n@x.test' }, signedOut)).toBe('authenticate');
    expect(chooseCeremony({}, signedOut)).toBe('authenticate');
  });

  it('verifies against an overridden origin: a response from the request origin is then refused', async () => {
    const t = authOn(world, { providers: [Passkey({ relyingParty: { origin: 'https://login.example.com', id: 'localhost' } })] });
    const device = new SoftAuthenticator(ORIGIN);
    const { options } = (await (await getOptions(t.client, { action: 'register', email: uniqueEmail('rp') })).json()) as Options;
    await postCredential(t, t.client, 'register', device.register(options as never));
    expect(t.logger.errorTypes()).toEqual(['WebAuthnVerificationError']);
    expect(t.logger.errors[0].message).toMatch(/origin/i);
  });
});

describe('the script', () => {
  it('is served as JavaScript that parses', async () => {
    const t = authOn(world);
    const res = await t.client.get('/auth/webauthn-script.js');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const source = await res.text();
    expect(() => new Script(source)).not.toThrow();
    for (const needle of ['parseCreationOptionsFromJSON', 'parseRequestOptionsFromJSON', 'toJSON()', "'conditional'", 'csrfToken']) expect(source).toContain(needle);
  });

  it('is loaded by the built-in sign-in page, next to the passkey section', async () => {
    const t = authOn(world);
    const page = await (await t.client.get('/auth/signin')).text();
    expect(page).toContain('src="/auth/webauthn-script.js"');
    expect(page).toContain('data-options-url="/auth/webauthn-options/passkey"');
    expect(page).toContain('autocomplete="email webauthn"');
  });
});

describe('configuration errors at start', () => {
  const adapter = () => world.adapter;
  const base = (overrides: Partial<AuthConfig>): AuthConfig => ({ secret: TEST_SECRET, logger: recordingLogger(), adapter: adapter(), experimental: { enableWebAuthn: true }, providers: [Passkey()], ...overrides });

  it('warns that WebAuthn is experimental, and refuses it without the flag', () => {
    const logger = recordingLogger();
    resolveConfig(base({ logger }), { env: {} });
    expect(logger.warnings).toContain('experimental-webauthn');
    expect(() => resolveConfig(base({ experimental: {} }), { env: {} })).toThrow(ExperimentalFeatureNotEnabled);
  });

  it('needs an adapter (MissingAdapter)', () => {
    expect(() => resolveConfig(base({ adapter: undefined }), { env: {} })).toThrow(MissingAdapter);
  });

  it('allows conditional UI on one provider only (DuplicateConditionalUI)', () => {
    expect(() => resolveConfig(base({ providers: [Passkey(), WebAuthn()] }), { env: {} })).toThrow(DuplicateConditionalUI);
    expect(() => resolveConfig(base({ providers: [Passkey(), WebAuthn({ enableConditionalUI: false })] }), { env: {} })).not.toThrow();
  });

  it('needs a webauthn autocomplete field for conditional UI (MissingWebAuthnAutocomplete)', () => {
    const fields = { email: { label: 'Email', autocomplete: 'email' } };
    expect(() => resolveConfig(base({ providers: [Passkey({ formFields: fields })] }), { env: {} })).toThrow(MissingWebAuthnAutocomplete);
    expect(() => resolveConfig(base({ providers: [Passkey({ formFields: fields, enableConditionalUI: false })] }), { env: {} })).not.toThrow();
  });
});
