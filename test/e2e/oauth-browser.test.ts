// response_mode=form_post in a real browser: the OP (127.0.0.1) auto-submits the callback to the app (localhost),
// a cross-site POST on which Chromium sends no SameSite=Lax cookie. The flow cookie must survive it.
import { createServer, type Server } from 'node:http';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthConfig } from '../../src/core/options.js';
import { ServerAuth } from '../../src/http/integrations/node.js';
import { OIDC } from '../../src/providers/oauth.js';
import { recordingLogger, TEST_SECRET, type RecordingLogger } from '../support/auth-app.js';
import { fenceToLoopback, launchChromium } from './peers/browser.js';
import { closeHttpServer, listenLoopback } from './peers/net.js';
import { startOidcProvider, type OidcProviderHarness } from './peers/oidc.js';

describe('form_post in Chromium', () => {
  let browser: Browser;
  let server: Server;
  let op: OidcProviderHarness;
  let origin: string;
  const logger: RecordingLogger = recordingLogger();

  beforeAll(async () => {
    let handler: ReturnType<typeof ServerAuth> | undefined;
    server = createServer((req, res) => {
      if (req.url?.startsWith('/auth')) void handler!(req, res);
      else res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>app</title><p>app page</p>');
    });
    // Bound to 127.0.0.1 but opened as localhost, so the OP (127.0.0.1) is another site.
    origin = `http://localhost:${await listenLoopback(server)}`;
    op = await startOidcProvider({ redirectUris: [`${origin}/auth/callback/formpost`] });
    const config: AuthConfig = {
      secret: TEST_SECRET,
      trustHost: true,
      logger,
      providers: [
        OIDC({
          id: 'formpost',
          name: 'OP with form_post',
          issuer: op.issuer,
          clientId: op.clientId,
          clientSecret: op.clientSecret,
          checks: ['pkce', 'state', 'nonce'],
          authorization: { params: { response_mode: 'form_post' } },
        }),
      ],
    };
    handler = ServerAuth(config);
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await op?.stop();
    if (server) await closeHttpServer(server);
  });

  it('signs in: the OP posts the callback across sites and the flow cookie goes with it', async () => {
    const context = await browser.newContext();
    await fenceToLoopback(context);
    try {
      const page = await context.newPage();
      await page.goto(`${origin}/auth/signin?callbackUrl=${encodeURIComponent(`${origin}/dashboard`)}`);
      await page.click('form[action$="/signin/formpost"] button');
      await page.waitForURL((url) => url.origin === new URL(op.issuer).origin);
      const callback = page.waitForRequest((request) => request.url().startsWith(`${origin}/auth/callback/formpost`));
      await page.fill('input[name=login]', 'alice');
      await page.fill('input[name=password]', 'any-password');
      await page.click('button[type=submit]');
      const posted = await callback;
      expect(posted.method()).toBe('POST');
      expect(await posted.headerValue('cookie')).toMatch(/authchart\.flow\.formpost=/);
      await page.waitForURL(`${origin}/dashboard`);
      const flowCookie = (await context.cookies(origin)).find((c) => c.name === 'authchart.flow.formpost');
      expect(flowCookie).toBeUndefined();
      const session = await page.evaluate(async () => (await fetch('/auth/session')).json());
      expect(session).toMatchObject({ user: { email: 'alice@example.test', name: 'Alice Liddell' } });
      expect(logger.errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
