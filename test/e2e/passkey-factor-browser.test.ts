// A passkey at the second-factor stage in Chromium: a user with an authenticator app and a passkey signs in with
// the credentials form, gets the stage page, presses "Use a passkey instead", and the built-in passkey script runs
// the ceremony against a CDP virtual authenticator (options bound to the pending sign-in), signing them in. No
// Content-Security-Policy violation on the way.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';
import { describe, expect, it } from 'vitest';
import { activeTotp } from '../support/factors.js';
import { seedUser } from '../flows/webauthn/webauthn-world.js';
import { newPageWithVirtualAuthenticator } from './peers/browser.js';
import { usePasskeySiteInChromium } from './peers/passkey-site.js';

describe('a passkey at the second-factor stage, in Chromium', () => {
  const site = usePasskeySiteInChromium({ secondFactor: {} });

  it('password, then the passkey instead of a code', { timeout: 60_000 }, async () => {
    const { world, origin, browser } = site;
    const user = await seedUser(world);
    await activeTotp(world.adapter, user.id);
    // The passkey: a key pair in the virtual authenticator, its public half stored as a registration would.
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const cose = isoCBOR.encode(new Map<number, number | Uint8Array>([[1, 2], [3, -7], [-1, 1], [-2, Buffer.from(jwk.x!, 'base64url')], [-3, Buffer.from(jwk.y!, 'base64url')]]));
    const credentialId = randomBytes(16).toString('base64');
    await world.adapter.linkAccount({ provider: 'passkey', type: 'webauthn', providerAccountId: credentialId, userId: user.id });
    await world.adapter.createAuthenticator({
      userId: user.id,
      providerAccountId: credentialId,
      credentialID: credentialId,
      credentialPublicKey: Buffer.from(cose).toString('base64'),
      counter: 0,
      credentialDeviceType: 'singleDevice',
      credentialBackedUp: false,
      transports: 'internal',
    });

    const { page, cdp, authenticatorId, close } = await newPageWithVirtualAuthenticator(browser);
    const violations: string[] = [];
    page.on('console', (msg) => {
      if (/Content Security Policy/i.test(msg.text())) violations.push(msg.text());
    });
    try {
      await page.addInitScript(() => {
        PublicKeyCredential.isConditionalMediationAvailable = () => Promise.resolve(false);
      });
      await cdp.send('WebAuthn.addCredential', {
        authenticatorId,
        credential: {
          credentialId,
          isResidentCredential: true,
          rpId: 'localhost',
          privateKey: privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64'),
          userHandle: randomBytes(16).toString('base64'),
          signCount: 0,
        },
      });
      await page.goto(`${origin}/auth/signin?callbackUrl=${encodeURIComponent(`${origin}/`)}`);
      await page.fill('form[action$="/callback/credentials"] input[name=email]', user.email!);
      await Promise.all([page.waitForURL(`${origin}/auth/callback/credentials`, { timeout: 15_000 }), page.click('form[action$="/callback/credentials"] button')]);
      expect(await page.locator('h1').innerText()).toBe('Two-step verification');

      const optionsRequests: string[] = [];
      page.on('request', (r) => {
        if (r.url().includes('/auth/second-factor?')) optionsRequests.push(r.url());
      });
      await Promise.all([page.waitForURL(`${origin}/`, { timeout: 15_000 }), page.click('[data-webauthn] button[data-action="authenticate"]')]);
      expect(optionsRequests).toEqual([`${origin}/auth/second-factor?action=authenticate`]);
      const session = JSON.parse(await page.locator('#session').innerText()) as { user?: { id?: string } };
      expect(session.user?.id).toBe(user.id);
      expect((await world.adapter.getAuthenticator(credentialId))?.counter).toBeGreaterThan(0);
      expect(violations).toEqual([]);
    } finally {
      await close();
    }
  });
});
