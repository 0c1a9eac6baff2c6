// Enterprise SSO with SAML in Chromium (issue 49), on a real PostgreSQL, a real DNS server for the TXT proof and the
// test SAML IdP on another site (localhost, the app on 127.0.0.1): an organization's admin, signed in, adds a SAML
// connection on the built-in SSO page (the IdP's entity id, SSO URL and certificate), claims the domain, publishes
// the TXT record, verifies it and routes it to the connection; then a user of that domain, in a fresh browser,
// chooses "Continue with SSO" on the sign-in page, signs in at the IdP's login page, and the IdP's auto-submitted
// form brings them back signed in, a member of the organization with it active. Screenshots in /tmp/sso-saml-shots/.
import { mkdirSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresAdapter, type PostgresAdapterInstance } from '../../src/adapters/postgres/index.js';
import type { AuthConfig } from '../../src/core/options.js';
import { argon2id, hashNewPassword, Password } from '../../src/providers/password/index.js';
import { serveLoopback, type LoopbackApp } from '../support/loopback-app.js';
import { useSharedStores } from '../support/shared-stores.js';
import { fenceToLoopback, launchChromium } from './peers/browser.js';
import { startSamlIdp, type SamlIdpHarness } from './peers/saml-idp.js';
import { startTxtServer, type TxtServer } from './peers/sso-world.js';

const SHOTS = '/tmp/sso-saml-shots';
const PASSWORD = 'correct horse battery staple';
const hasher = argon2id({ memoryCost: 1024, timeCost: 1 });
const domain = `acme-${randomUUID().slice(0, 8)}.test`;
const stores = useSharedStores();
let browser: Browser;
let app: LoopbackApp;
let adapter: PostgresAdapterInstance;
let idp: SamlIdpHarness;
let dns: TxtServer;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  [browser, idp, dns] = await Promise.all([launchChromium(), startSamlIdp({ alice: { email: `alice@${domain}`, name: 'Alice Acme' } }, { host: 'localhost' }), startTxtServer()]);
  adapter = PostgresAdapter(stores.pool(await stores.schema()));
  app = await serveLoopback({
    secret: 'sso-saml-browser-secret-0123456789abcdef',
    trustHost: true,
    adapter,
    providers: [Password({ hasher })],
    session: { strategy: 'jwt' },
    throttle: { enabled: false },
    organizations: {},
    sso: { resolveTxt: dns.resolveTxt },
    logger: { error: () => {}, warn: () => {}, debug: () => {} },
  } as AuthConfig);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await app?.close();
  await idp?.stop();
  await dns?.stop();
});

const shot = (page: Page, name: string) => page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });

async function session(context: BrowserContext): Promise<{ user?: { email?: string; name?: string }; organization?: { id: string; role: string } | null } | null> {
  return (await (await context.request.get(`${app.origin}/auth/session`)).json()) as never;
}

async function freshContext(): Promise<BrowserContext> {
  const context = await browser.newContext();
  await fenceToLoopback(context);
  return context;
}

describe('SAML single sign-on in Chromium', { timeout: 180_000 }, () => {
  it('the admin sets the connection and the domain up on the SSO page; a user of the domain signs in through the IdP', async () => {
    const adminEmail = `admin-${randomUUID()}@example.test`;
    const admin = await adapter.createUser({ id: randomUUID(), email: adminEmail, emailVerified: new Date(), name: 'Ada Admin' });
    await adapter.setPasswordHash(admin.id, await hashNewPassword(PASSWORD, { hasher }));

    // The admin signs in, makes the organization, and opens the SSO page.
    const adminContext = await freshContext();
    const ap = await adminContext.newPage();
    await ap.goto(`${app.origin}/auth/signin?callbackUrl=${encodeURIComponent(`${app.origin}/auth/account/organizations`)}`);
    const passwordForm = ap.locator('form[action$="/callback/password"]');
    await passwordForm.locator('input[name="email"]').fill(adminEmail);
    await passwordForm.locator('input[name="password"]').fill(PASSWORD);
    await Promise.all([ap.waitForURL(`${app.origin}/auth/account/organizations`), passwordForm.locator('button[type="submit"]').click()]);
    await ap.fill('form[data-org-action="create"] input[name="name"]', 'Acme');
    await Promise.all([ap.waitForLoadState('load'), ap.click('form[data-org-action="create"] button')]);
    await ap.waitForSelector('form[data-org-action="invite"]');
    const organizationId = (await session(adminContext))!.organization!.id;
    await ap.goto(`${app.origin}/auth/organizations/sso/page`);
    await shot(ap, '1-admin-sso-page');

    // A SAML connection through the page's form.
    const saml = ap.locator('form[data-form="add-saml-connection"]');
    await saml.locator('input[name="name"]').fill('Acme SAML');
    await saml.locator('input[name="idpEntityId"]').fill(idp.entityId);
    await saml.locator('input[name="idpSsoUrl"]').fill(idp.ssoUrl);
    await saml.locator('textarea[name="idpCertificates"]').fill(idp.keys.cert);
    await shot(ap, '2-admin-saml-form-filled');
    await Promise.all([ap.waitForURL((u) => u.searchParams.get('notice') === 'saved'), saml.locator('button[type="submit"]').click()]);
    const row = ap.locator('[data-connection]');
    await expect.poll(() => row.count()).toBe(1);
    const connectionId = (await row.getAttribute('data-connection'))!;
    expect(await row.innerText()).toContain(`${app.origin}/auth/sso/saml/${connectionId}/acs`);

    // The domain: claim, publish the TXT record the page names, verify, route to the connection.
    await ap.fill('form[data-form="claim-domain"] input[name="domain"]', domain);
    await Promise.all([ap.waitForURL((u) => u.searchParams.get('notice') === 'saved'), ap.click('form[data-form="claim-domain"] button')]);
    const listed = (await (await adminContext.request.get(`${app.origin}/auth/organizations/sso`)).json()) as { domains: { domain: string; txtHost: string; txtValue: string }[] };
    const claim = listed.domains.find((d) => d.domain === domain)!;
    expect(await ap.locator(`[data-domain="${domain}"]`).innerText()).toContain(claim.txtValue);
    dns.records.set(claim.txtHost, [claim.txtValue]);
    await shot(ap, '3-admin-domain-claimed');
    const domainRow = ap.locator(`[data-domain="${domain}"]`);
    await Promise.all([ap.waitForLoadState('load'), domainRow.locator(`form[action$="/domains/verify"] button`).click()]);
    await ap.waitForURL((u) => u.searchParams.get('notice') === 'saved');
    await domainRow.locator('select[name="connectionId"]').selectOption(connectionId);
    await Promise.all([ap.waitForLoadState('load'), domainRow.locator(`form[action$="/domains/route"] button`).click()]);
    await ap.waitForURL((u) => u.searchParams.get('notice') === 'saved');
    expect(await domainRow.innerText()).toContain('Verified');
    expect(await domainRow.locator('select[name="connectionId"]').inputValue()).toBe(connectionId);
    await shot(ap, '4-admin-domain-verified-routed');

    // A user of the domain in a fresh browser: "Continue with SSO", the IdP's login page, back signed in.
    const userContext = await freshContext();
    const up = await userContext.newPage();
    await up.goto(`${app.origin}/auth/signin?callbackUrl=${encodeURIComponent(`${app.origin}/auth/account`)}`);
    await up.fill('form.sso input[name="email"]', `alice@${domain}`);
    await shot(up, '5-user-continue-with-sso');
    await Promise.all([up.waitForURL((u) => u.href.startsWith(idp.ssoUrl)), up.click('form.sso button[type="submit"]')]);
    expect(idp.readRequest(up.url()).acsUrl).toBe(`${app.origin}/auth/sso/saml/${connectionId}/acs`);
    await shot(up, '6-user-at-idp');
    await Promise.all([up.waitForURL(`${app.origin}/auth/account`), up.click('button:has-text("Sign in")')]);
    await shot(up, '7-user-signed-in');
    const signedIn = await session(userContext);
    expect(signedIn?.user).toMatchObject({ email: `alice@${domain}`, name: 'Alice Acme' });
    expect(signedIn?.organization).toMatchObject({ id: organizationId, role: 'member' });
    await adminContext.close();
    await userContext.close();
  });
});
