// Organizations in Chromium (issue 47), one walk on a real PostgreSQL with a real SMTP server (smtp-server) catching
// the mails: an owner invites a new address from the organizations page; the invitee opens the mail's link, signs up
// from the invitation page (the sign-up mail's link brings them back), and accepts; the owner raises the invitee's
// role and the invitee's next session read shows it without signing in again; the owner removes the invitee, whose
// next request is refused. Screenshots in /tmp/authchart-organizations/.
import { mkdirSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresAdapter, type PostgresAdapterInstance } from '../../src/adapters/postgres/index.js';
import type { AuthConfig } from '../../src/core/options.js';
import { Email } from '../../src/providers/email.js';
import { argon2id, hashNewPassword, Password } from '../../src/providers/password/index.js';
import { serveLoopback, type LoopbackApp } from '../support/loopback-app.js';
import { useSharedStores } from '../support/shared-stores.js';
import { fenceToLoopback, launchChromium } from './peers/browser.js';
import { startSmtpServer, type SmtpHarness } from './peers/smtp.js';

const SHOTS = '/tmp/authchart-organizations';
const PASSWORD = 'correct horse battery staple';
const hasher = argon2id({ memoryCost: 1024, timeCost: 1 });
const stores = useSharedStores();
let smtp: SmtpHarness;
let browser: Browser;
let app: LoopbackApp;
let adapter: PostgresAdapterInstance;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  [smtp, browser] = await Promise.all([startSmtpServer(), launchChromium()]);
  adapter = PostgresAdapter(stores.pool(await stores.schema()));
  app = await serveLoopback({
    secret: 'organizations-browser-secret-0123456789abcdef',
    trustHost: true,
    adapter,
    providers: [Password({ hasher }), Email({ server: { host: '127.0.0.1', port: smtp.port, secure: false, ignoreTLS: true }, from: 'auth@example.test' })],
    session: { strategy: 'jwt' },
    throttle: { enabled: false },
    organizations: {},
    logger: { error: () => {}, warn: () => {}, debug: () => {} },
  } as AuthConfig);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await app?.close();
  await smtp?.stop();
});

const shot = (page: Page, name: string) => page.screenshot({ path: `${SHOTS}/${name}.png`, fullPage: true });

async function session(context: BrowserContext): Promise<{ user?: { email?: string }; organization?: { id: string; role: string } | null } | null> {
  return (await (await context.request.get(`${app.origin}/auth/session`)).json()) as never;
}

describe('organizations in Chromium', { timeout: 180_000 }, () => {
  it('invite a new address, sign up from the mail and join, change the role live, remove at once', async () => {
    const ownerEmail = `owner-${randomUUID()}@example.test`;
    const inviteeEmail = `new-${randomUUID()}@example.test`;
    const owner = await adapter.createUser({ id: randomUUID(), email: ownerEmail, emailVerified: new Date(), name: 'Olive Owner' });
    await adapter.setPasswordHash(owner.id, await hashNewPassword(PASSWORD, { hasher }));

    // The owner signs in on the sign-in page and opens the organizations page from the account page.
    const ownerContext = await browser.newContext();
    await fenceToLoopback(ownerContext);
    const op = await ownerContext.newPage();
    await op.goto(`${app.origin}/auth/signin?callbackUrl=${encodeURIComponent(`${app.origin}/auth/account`)}`);
    const passwordForm = op.locator('form[action$="/callback/password"]');
    await passwordForm.locator('input[name="email"]').fill(ownerEmail);
    await passwordForm.locator('input[name="password"]').fill(PASSWORD);
    await Promise.all([op.waitForURL(`${app.origin}/auth/account`), passwordForm.locator('button[type="submit"]').click()]);
    await Promise.all([op.waitForURL(`${app.origin}/auth/account/organizations`), op.click('[data-account-action="organizations"]')]);
    await op.fill('form[data-org-action="create"] input[name="name"]', 'Acme Rockets');
    await Promise.all([op.waitForLoadState('load'), op.click('form[data-org-action="create"] button')]);
    await op.waitForSelector('form[data-org-action="invite"]');
    await op.fill('form[data-org-action="invite"] input[name="email"]', inviteeEmail);
    await Promise.all([op.waitForLoadState('load'), op.click('form[data-org-action="invite"] button')]);
    await op.waitForSelector(`[data-section="invitations"] li:has-text("${inviteeEmail}")`);
    await shot(op, '1-owner-invited');

    // The invitee: the mail's link, the page that says who invites whom, then sign-up from there.
    const invitation = await smtp.waitForMessage(inviteeEmail);
    expect(invitation.subject).toContain('Acme Rockets');
    const link = invitation.links.find((l) => l.includes('/auth/invitations/'))!;
    expect(link).toBeTruthy();
    const inviteeContext = await browser.newContext();
    await fenceToLoopback(inviteeContext);
    const ip = await inviteeContext.newPage();
    await ip.goto(link);
    expect(await ip.locator('body').innerText()).toContain('Olive Owner invites');
    await shot(ip, '2-invitee-opened');
    await Promise.all([ip.waitForURL((u) => u.pathname === '/auth/signup/password'), ip.click('[data-form-leave]')]);
    await ip.fill('input[name="email"]', inviteeEmail);
    await ip.fill('input[name="password"]', PASSWORD);
    await Promise.all([ip.waitForLoadState('load'), ip.click('form button[type="submit"]')]);
    await shot(ip, '3-invitee-signed-up');
    const proof = await smtp.waitForMessage(inviteeEmail);
    const verify = proof.links.find((l) => l.includes('/auth/signup/password?token='))!;
    await ip.goto(verify);
    // Back on the invitation, signed in as the invited address: accept.
    await ip.waitForURL((u) => u.pathname.startsWith('/auth/invitations/'));
    await shot(ip, '4-invitee-invitation');
    await Promise.all([ip.waitForURL((u) => !u.pathname.startsWith('/auth/invitations/')), ip.click('form[method="post"] button.button:not(.secondary)')]);
    const joined = await session(inviteeContext);
    expect(joined?.user?.email).toBe(inviteeEmail);
    expect(joined?.organization?.role).toBe('member');
    const organizationId = joined!.organization!.id;

    // The owner raises the invitee to admin on the members list; the invitee's next read shows it.
    await op.goto(`${app.origin}/auth/account/organizations`);
    const row = op.locator(`[data-section="members"] li:has-text("${inviteeEmail}")`);
    await row.locator('select[name="role"]').selectOption('admin');
    await Promise.all([op.waitForLoadState('load'), row.locator('form[data-org-action="role"] button').click()]);
    expect(await op.locator(`[data-section="members"] li:has-text("${inviteeEmail}") [data-role]`).innerText()).toBe('admin');
    await shot(op, '5-owner-changed-role');
    expect((await session(inviteeContext))?.organization).toMatchObject({ id: organizationId, role: 'admin' });
    await ip.goto(`${app.origin}/auth/account/organizations`);
    await ip.waitForSelector('form[data-org-action="invite"]');
    await shot(ip, '6-invitee-as-admin');

    // Removed: the invitee's very next request is refused, still signed in but in no organization.
    await Promise.all([op.waitForLoadState('load'), op.locator(`[data-section="members"] li:has-text("${inviteeEmail}") form[data-org-action="remove"] button`).click()]);
    expect(await op.locator(`[data-section="members"]`).innerText()).not.toContain(inviteeEmail);
    expect((await inviteeContext.request.get(`${app.origin}/auth/organizations/members`)).status()).toBe(403);
    expect((await session(inviteeContext))?.organization).toBeNull();
    await ip.goto(`${app.origin}/auth/account/organizations`);
    expect(await ip.locator('form[data-org-action="invite"]').count()).toBe(0);
    await shot(ip, '7-invitee-removed');
    await ownerContext.close();
    await inviteeContext.close();
  });
});
