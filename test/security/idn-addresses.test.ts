// Internationalised domain names: `idn@bücher.example` and `idn@xn--bcher-kva.example` are one mailbox, so they
// must be one user. Every way an address reaches storage (a magic link, an OAuth profile, `authorize`, a passkey's
// label) keeps the domain in its ASCII form, so no spelling makes a second user or slips past "address taken".
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asciiEmailDomain } from '../../src/core/email-address.js';
import type { AuthConfig } from '../../src/core/options.js';
import { Credentials } from '../../src/providers/credentials.js';
import { OIDC } from '../../src/providers/oauth.js';
import { Passkey } from '../../src/providers/webauthn.js';
import { ORIGIN, testAuth, type TestAuth } from '../support/auth-app.js';
import { memoryOutbox, signInByLink } from '../support/magic-link.js';
import { pgliteDatabase, writes, type TestDatabase } from '../session/database-harness.js';
import { startOidcProvider, type OidcProviderHarness } from '../e2e/peers/oidc.js';
import { storedSessionToken } from '../../src/session/session-token.js';

const PUNYCODE = 'xn--bcher-kva.example';

let d: TestDatabase;
let op: OidcProviderHarness;
// Each OP account has a Unicode-domain address whose punycode twin some test signs up first.
const accounts = {
  linked: { email: 'linked@Bücher.example', email_verified: true, name: 'Linked' },
  refused: { email: 'refused@bücher.example', email_verified: true, name: 'Refused' },
};
beforeAll(async () => {
  [d, op] = await Promise.all([pgliteDatabase(), startOidcProvider({ accounts })]);
}, 30_000);
afterAll(async () => {
  await op?.stop();
  await d?.close();
});

const outbox = memoryOutbox();
const usersAt = (local: string) => d.sql<{ id: string; email: string }>('SELECT id, email FROM users WHERE email LIKE $1', [`${local}@%`]);

function app(providers: AuthConfig['providers']): TestAuth {
  return testAuth({ adapter: d.adapter, session: { strategy: 'database' }, providers });
}

const oidc = (allowDangerousEmailAccountLinking: boolean) =>
  OIDC({ id: 'oidc', name: 'Test OP', issuer: op.issuer, clientId: op.clientId, clientSecret: op.clientSecret, checks: ['pkce', 'state', 'nonce'], allowDangerousEmailAccountLinking });

async function oidcSignIn(t: TestAuth, who: string) {
  const client = t.newClient();
  const csrfToken = await t.csrfToken(client);
  const start = await client.post('/auth/signin/oidc', { csrfToken, callbackUrl: '/after' });
  return client.submit(await op.login(start.location!.href, who));
}

it('one form: Unicode and punycode domains, any case, map to the same ASCII address', () => {
  for (const spelling of ['idn@bücher.example', 'idn@BÜCHER.example', 'idn@xn--bcher-kva.example', 'idn@XN--BCHER-KVA.EXAMPLE']) {
    expect(asciiEmailDomain(spelling)).toBe(`idn@${PUNYCODE}`);
  }
});

describe('magic links', () => {
  it('a link to the Unicode form and then to the punycode form sign in one user', async () => {
    const t = app([outbox.provider]);
    const first = await signInByLink(t, outbox, 'idn@bücher.example');
    expect(first.location?.href).toBe(`${ORIGIN}/after`);
    expect(outbox.sent.at(-1)?.identifier).toBe(`idn@${PUNYCODE}`);
    const second = await signInByLink(t, outbox, `idn@${PUNYCODE}`, t.newClient());
    expect(second.location?.href).toBe(`${ORIGIN}/after`);
    const users = await usersAt('idn');
    expect(users).toEqual([{ id: expect.any(String), email: `idn@${PUNYCODE}` }]);
    const sessions = await d.sql('SELECT user_id FROM sessions WHERE session_token = ANY($1)', [[storedSessionToken(writes(first)[0]!.value), storedSessionToken(writes(second)[0]!.value)]]);
    expect(sessions).toEqual([{ user_id: users[0]!.id }, { user_id: users[0]!.id }]);
  });
});

describe('OAuth profiles', () => {
  it('a Unicode-domain profile address links to the punycode e-mail user (allowDangerousEmailAccountLinking)', async () => {
    const t = app([outbox.provider, oidc(true)]);
    await signInByLink(t, outbox, `linked@${PUNYCODE}`);
    const [owner] = await usersAt('linked');
    const res = await oidcSignIn(t, 'linked');
    expect(res.location?.href).toBe(`${ORIGIN}/after`);
    expect(await usersAt('linked')).toEqual([owner]);
    expect((await d.adapter.getUserByAccount({ provider: 'oidc', providerAccountId: 'linked' }))?.id).toBe(owner!.id);
  });

  it('without the opt-in it is refused as taken (OAuthAccountNotLinked), never a second user', async () => {
    const t = app([outbox.provider, oidc(false)]);
    await signInByLink(t, outbox, `refused@${PUNYCODE}`);
    const res = await oidcSignIn(t, 'refused');
    expect(res.location?.href).toBe(`${ORIGIN}/auth/signin?error=OAuthAccountNotLinked`);
    expect(writes(res)).toEqual([]);
    expect(await usersAt('refused')).toHaveLength(1);
  });
});

describe('credentials and passkey labels', () => {
  it('an address authorize returns is stored in ASCII, so its magic link finds that user', async () => {
    const credentials = Credentials({ authorize: async () => ({ id: 'idn-credentials-user', email: 'creds@bücher.example' }) });
    const t = app([credentials, outbox.provider]);
    const csrfToken = await t.csrfToken();
    const res = await t.client.post('/auth/callback/credentials', { csrfToken, callbackUrl: '/after' });
    expect(res.location?.href).toBe(`${ORIGIN}/after`);
    expect(await usersAt('creds')).toEqual([{ id: 'idn-credentials-user', email: `creds@${PUNYCODE}` }]);
    await signInByLink(t, outbox, `creds@${PUNYCODE}`, t.newClient());
    expect(await usersAt('creds')).toHaveLength(1);
  });

  it('a passkey registered signed out is labelled with the ASCII form', async () => {
    const t = testAuth({ adapter: d.adapter, experimental: { enableWebAuthn: true }, providers: [Passkey()] });
    const res = await t.client.get(`/auth/webauthn-options/passkey?action=register&email=${encodeURIComponent('key@Bücher.example')}`);
    const { options } = (await res.json()) as { options: { user: { name: string } } };
    expect(options.user.name).toBe(`key@${PUNYCODE}`);
  });
});
