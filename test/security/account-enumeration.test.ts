// Account enumeration: a signed-out caller must not learn whether an address has a user. For each public entry
// point that takes an address, the answers for a known and an unknown address are compared field by field:
// passkey options (the address is never looked up: no credential ids, the same action), the credentials error
// (unknown user and wrong password look alike), and the e-mail sign-in (a link is "sent" either way).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Credentials } from '../../src/providers/credentials.js';
import { Passkey } from '../../src/providers/webauthn.js';
import type { ClientResponse } from '../support/client.js';
import { parseSetCookie } from '../support/cookie-jar.js';
import { memoryOutbox, requestLink } from '../support/magic-link.js';
import { SoftAuthenticator } from '../flows/webauthn/webauthn-authenticator.js';
import { authOn, createWorld, getOptions, seedPasskey, seedUser, uniqueEmail, type World, type WorldAuth } from '../flows/webauthn/webauthn-world.js';
import { ORIGIN } from '../support/auth-app.js';

const PASSWORD = 'the right password';

let world: World;
beforeAll(async () => {
  world = await createWorld();
});
afterAll(async () => {
  await world?.close();
});

const outbox = memoryOutbox();

function app(): WorldAuth {
  // An app's usual authorize: null for an unknown user and for a wrong password alike.
  const credentials = Credentials({
    credentials: { email: { label: 'Email' }, password: { label: 'Password', type: 'password' } },
    authorize: async (c) => {
      const user = await world.adapter.getUserByEmail(String(c.email));
      return user && c.password === PASSWORD ? { id: user.id, email: user.email } : null;
    },
  });
  return authOn(world, { providers: [Passkey(), outbox.provider, credentials] });
}

/** A user with an address and a passkey: everything a lookup by address could reveal. */
async function knownAddress(): Promise<string> {
  const user = await seedUser(world, uniqueEmail('known'));
  await seedPasskey(world, user, new SoftAuthenticator(ORIGIN));
  return user.email!;
}

/** What a response tells apart from the random parts: status, headers that matter, cookies (names, attributes). */
function observable(res: ClientResponse) {
  const cookies = res.setCookie.map((line) => {
    const { value: _value, expires: _expires, ...rest } = parseSetCookie(line)!;
    return rest;
  });
  return {
    status: res.status,
    location: res.location?.href ?? null,
    contentType: res.headers.get('content-type'),
    cacheControl: res.headers.get('cache-control'),
    cookies,
  };
}

/** The JSON body with random values and the typed address replaced by placeholders. */
function shapeOf(body: unknown, typed: string): unknown {
  const walk = (value: unknown, key?: string): unknown => {
    if (Array.isArray(value)) return value.map((v) => walk(v));
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, k)]));
    if (key === 'challenge' || (key === 'id' && typeof value === 'string')) return '<random>';
    if (value === typed) return '<typed address>';
    return value;
  };
  return walk(body);
}

async function optionsFor(t: WorldAuth, query: Record<string, string | undefined>) {
  const res = await getOptions(t.newClient(), query);
  const body = (await res.json()) as { action: string; options: Record<string, unknown> };
  return { res, body };
}

describe('passkey options (GET webauthn-options/passkey?email=)', () => {
  it.each([
    ['action=authenticate', 'authenticate'],
    ['action=register', 'register'],
    ['no action', undefined],
  ])('answer a known and an unknown address alike, signed out (%s)', async (_name, action) => {
    const t = app();
    const known = await knownAddress();
    const unknown = uniqueEmail('unknown');
    const a = await optionsFor(t, { action, email: known });
    const b = await optionsFor(t, { action, email: unknown });

    expect(observable(a.res)).toEqual(observable(b.res));
    expect(a.res.status).toBe(200);
    expect(a.body.action).toBe(b.body.action);
    expect(a.body.action).toBe(action ?? 'authenticate');
    expect('allowCredentials' in a.body.options).toBe('allowCredentials' in b.body.options);
    expect(a.body.options.allowCredentials).toBeUndefined();
    expect(shapeOf(a.body, known)).toEqual(shapeOf(b.body, unknown));
    // The flow cookie is the same one, sealed either way.
    expect(a.res.setCookie.map((l) => parseSetCookie(l)!.name)).toEqual(['authchart.flow.passkey']);
  });

  it('never look the address up: no adapter call names it', async () => {
    const t = app();
    const known = await knownAddress();
    const from = t.logger.debugs.length;
    await optionsFor(t, { action: 'authenticate', email: known });
    await optionsFor(t, { action: 'register', email: known });
    const calls = t.logger.debugs.slice(from).filter((d) => d.message.startsWith('adapter_'));
    expect(calls.map((d) => d.message)).not.toContain('adapter_getUserByEmail');
    expect(JSON.stringify(calls)).not.toContain(known);
  });
});

describe('credentials sign-in', () => {
  it('fails alike for an unknown user and for a wrong password (CredentialsSignin, code=credentials)', async () => {
    const t = app();
    const known = await knownAddress();
    const attempt = async (email: string, password: string) => {
      const client = t.newClient();
      const csrfToken = await t.csrfToken(client);
      return client.post('/auth/callback/credentials', { csrfToken, email, password, callbackUrl: '/after' });
    };
    const wrongPassword = await attempt(known, 'not the password');
    const unknownUser = await attempt(uniqueEmail('unknown'), 'not the password');
    expect(observable(wrongPassword)).toEqual(observable(unknownUser));
    expect(wrongPassword.location?.href).toBe(`${ORIGIN}/auth/signin?error=CredentialsSignin&code=credentials`);
  });
});

describe('e-mail sign-in', () => {
  it('answers a known and an unknown address alike, and sends a link to either', async () => {
    const t = app();
    const known = await knownAddress();
    const unknown = uniqueEmail('unknown');
    const a = await requestLink(t, known, t.newClient());
    const b = await requestLink(t, unknown, t.newClient());
    expect(observable(a)).toEqual(observable(b));
    expect(a.location?.href).toBe(`${ORIGIN}/auth/verify-request?provider=email&type=email`);
    expect(outbox.sent.slice(-2).map((m) => m.identifier)).toEqual([known, unknown]);
  });
});
