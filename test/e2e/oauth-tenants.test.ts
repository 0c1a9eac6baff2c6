// Multi-tenant OIDC (Microsoft Entra ID's `common`): the discovery document names `{tenantid}` in its issuer, and
// users of any tenant sign in, each ID token held to the issuer of its own `tid`. Forged tenants sign no one in.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Profile } from '../../src/core/types.js';
import { OIDC } from '../../src/providers/oauth.js';
import { MicrosoftEntraID } from '../../src/providers/index.js';
import { testAuth, type TestAuth } from '../support/auth-app.js';
import { expectFailure, lastError, setsSession, startSignIn } from './oauth/harness.js';
import { CONSUMERS_TENANT, startTenantOp, type TenantOp, type TenantUser } from './peers/tenant-op.js';

const CLIENT = { id: 'tenant-app', secret: 'tenant-app-secret-0123456789abcdefgh' };
const CONTOSO = '72f988bf-86f1-41af-91ab-2d7cd011db47';
const FABRIKAM = '5b3c1a1e-9a4e-4f0b-8a7d-3c2e1f0d9b8a';
const alice: TenantUser = { sub: 'alice-pairwise', tid: CONTOSO, email: 'alice@contoso.test', name: 'Alice Contoso' };
const bob: TenantUser = { sub: 'bob-pairwise', tid: FABRIKAM, email: 'bob@fabrikam.test', name: 'Bob Fabrikam' };

let op: TenantOp;
beforeAll(async () => {
  op = await startTenantOp(CLIENT, alice);
});
afterAll(async () => {
  await op?.stop();
});
afterEach(() => {
  op.reset();
  op.user = alice;
});

function app(extra: { signIn?: (p: { profile?: Profile }) => boolean } = {}): TestAuth {
  const common = { clientId: CLIENT.id, clientSecret: CLIENT.secret, checks: ['pkce', 'nonce'] as ('pkce' | 'nonce')[] };
  return testAuth({
    providers: [
      OIDC({ id: 'entra', name: 'Entra (common)', issuer: op.commonIssuer, issuerPerTenant: true, ...common }),
      // The same issuer without the option: a templated issuer is then just another issuer's document.
      OIDC({ id: 'plain', name: 'Without issuerPerTenant', issuer: op.commonIssuer, ...common }),
      OIDC({ id: 'consumers', name: 'Entra (consumers)', issuer: op.consumersIssuer, issuerPerTenant: true, ...common }),
    ],
    callbacks: extra.signIn ? { signIn: extra.signIn } : undefined,
  });
}

/** Starts a sign-in with `provider`, lets the OP answer, and brings the browser back to the callback. */
async function signIn(t: TestAuth, provider = 'entra') {
  const start = await startSignIn(t, provider);
  const atOp = await fetch(start.location!, { redirect: 'manual' });
  expect(atOp.status).toBe(302);
  return t.client.get(atOp.headers.get('location')!);
}

async function sessionUser(t: TestAuth) {
  return ((await (await t.client.get('/auth/session')).json()) as { user?: { email?: string } } | null)?.user;
}

describe('a multi-tenant issuer ({tenantid} in the discovery document)', () => {
  it('signs in users of two tenants, each token checked against its own tenant issuer', async () => {
    const t = app();
    const first = await signIn(t);
    expect(first.status).toBe(302);
    expect(setsSession(first)).toBe(true);
    expect(await sessionUser(t)).toMatchObject({ email: alice.email });

    op.user = bob;
    const other = app();
    expect(setsSession(await signIn(other))).toBe(true);
    expect(await sessionUser(other)).toMatchObject({ email: bob.email });
    expect([...t.logger.errors, ...other.logger.errors]).toEqual([]);
  });

  it('leaves the choice of tenants to the signIn callback (profile.tid)', async () => {
    const t = app({ signIn: ({ profile }) => profile?.tid === CONTOSO });
    expect(setsSession(await signIn(t))).toBe(true);
    op.user = bob;
    const refused = await signIn(t);
    expect(refused.location?.searchParams.get('error')).toBe('AccessDenied');
    expect(setsSession(refused)).toBe(false);
  });

  it('refuses a token whose iss names another tenant than its tid (InvalidCheck)', async () => {
    const t = app();
    op.mint = (claims) => ({ ...claims, iss: op.issuerOf(FABRIKAM) });
    expectFailure(t, await signIn(t), 'InvalidCheck', 'Configuration');
    expect(lastError(t).message).toMatch(/"iss"/);
  });

  it.each([
    ['no tid', undefined],
    ['a tid that is not a tenant id', '../../evil.test'],
    ['a tid of another shape', 'contoso'],
  ])('refuses a token with %s (InvalidCheck), whatever its iss', async (_name, tid) => {
    const t = app();
    op.mint = (claims) => ({ ...claims, tid, iss: `${op.origin}/${String(tid)}/v2.0` });
    expectFailure(t, await signIn(t), 'InvalidCheck', 'Configuration');
    expect(lastError(t).message).toMatch(/tenant id/);
  });

  it('refuses a token whose claims were changed after signing (its signature is checked over plain HTTP)', async () => {
    const t = app();
    op.afterSign = (jwt) => {
      const [header, payload, signature] = jwt.split('.');
      const claims = { ...JSON.parse(Buffer.from(payload, 'base64url').toString()), email: 'mallory@contoso.test' };
      return `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
    };
    expectFailure(t, await signIn(t), 'OAuthCallbackError');
    expect(lastError(t).message).toMatch(/signature/i);
  });

  it('fails discovery for a provider without issuerPerTenant: the document names another issuer', async () => {
    const t = app();
    const res = await t.client.post('/auth/signin/plain', { csrfToken: await t.csrfToken(), callbackUrl: 'http://localhost:3000/' });
    expect(res.location?.searchParams.get('error')).toBe('Configuration');
    expect(t.logger.errorTypes().at(-1)).toBe('OAuthSignInError');
  });

  it('accepts the one tenant the consumers document names, and holds tokens to it', async () => {
    op.user = { sub: 'carol-pairwise', tid: CONSUMERS_TENANT, email: 'carol@outlook.test', name: 'Carol' };
    const t = app();
    expect(setsSession(await signIn(t, 'consumers'))).toBe(true);
    expect(await sessionUser(t)).toMatchObject({ email: 'carol@outlook.test' });
    op.user = alice;
    const work = app();
    expectFailure(work, await signIn(work, 'consumers'), 'InvalidCheck', 'Configuration');
    expect(lastError(work).message).toMatch(/"iss"/);
  });

  it('is on for the Microsoft Entra ID preset', () => {
    expect(MicrosoftEntraID({ issuer: 'https://login.microsoftonline.com/organizations/v2.0' }).issuerPerTenant).toBe(true);
  });
});
