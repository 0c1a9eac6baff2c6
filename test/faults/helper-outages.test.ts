// Every helper an app calls answers an outage the same way, under a refused and under a stalled PostgreSQL: the h3
// middleware, getSession and requireSession in an h3 app, AuthInit's auth as Express middleware and as a fetch
// handler wrapper, getSession(req, config, res) and auth(req, res) in an Express route. 503 with Retry-After, the outage page for a browser and JSON for a client; the logger gets one
// line for the whole burst, and nothing else (h3, Express) writes to the console: no 500, no stack per request.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import express from 'express';
import { H3, toNodeHandler } from 'h3';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { PostgresAdapter } from '../../src/adapters/postgres/index.js';
import type { AuthConfig } from '../../src/core/options.js';
import { AuthInit } from '../../src/http/integrations/fetch.js';
import { createAuthMiddleware } from '../../src/http/integrations/h3.js';
import { authOnError } from '../../src/http/outage.js';
import { getSession, requireSession } from '../../src/http/integrations/session-helpers.js';
import { recordingLogger, TEST_SECRET, testAuth } from '../support/auth-app.js';
import { passwordProvider, signIn, SESSION_COOKIE } from '../session/database-harness.js';
import type { FaultMode } from './fault-proxy.js';
import { useProxiedPostgres } from './proxied-postgres.js';

const DEADLINE = 300;
const BURST = 6;

const listen = (server: Server): Promise<string> =>
  new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));

describe('helpers under a store outage', () => {
  const db = useProxiedPostgres('helpers', DEADLINE);
  let cookie: string;

  beforeAll(async () => {
    const t = testAuth({ adapter: PostgresAdapter(db.pool), providers: [passwordProvider()], session: { strategy: 'database' } });
    await signIn(t, `helper-${randomBytes(4).toString('hex')}@outage.test`);
    cookie = `${SESSION_COOKIE}=${t.client.cookies.get(SESSION_COOKIE)}`;
  });

  /** A fresh configuration (its own logger and log window) on the database behind the proxy. */
  function config() {
    const logger = recordingLogger();
    const c: AuthConfig = { adapter: PostgresAdapter(db.pool), providers: [passwordProvider()], session: { strategy: 'database' }, secret: TEST_SECRET, trustHost: true, storeTimeout: DEADLINE, logger };
    return { config: c, logger };
  }

  /** Each app form: its base URL and how it is closed. */
  async function apps() {
    const h3 = config();
    // authOnError: a browser reading the session in a route gets the outage page (h3 alone answers a thrown error as JSON).
    const app = new H3({ onError: authOnError });
    app.use('/mw/**', createAuthMiddleware(h3.config));
    app.get('/mw/page', () => 'page');
    app.get('/session', async (event) => ({ session: await getSession(event, h3.config) }));
    app.get('/private', async (event) => (await requireSession(event, h3.config)).user);
    const h3Server = createServer(toNodeHandler(app));

    const ex = config();
    const exAuth = AuthInit(ex.config);
    const exApp = express();
    exApp.use(exAuth.auth as unknown as express.RequestHandler);
    exApp.get('/mw/page', (_req, res) => void res.send('page'));
    // Express logs an error that reaches it with its stack, except when its env is 'test' (what vitest sets).
    exApp.set('env', 'production');
    const exServer = createServer(exApp);

    // An Express route that reads the session itself, with no middleware before it: the outage is answered on `res`.
    const gs = config();
    // AuthInit makes an instance of its own (and a log window of its own): its config is another one.
    const ga = config();
    const gsAuth = AuthInit(ga.config);
    const gsApp = express().set('env', 'production');
    gsApp.get('/me', async (req, res) => void res.json({ session: await getSession(req, gs.config, res) }));
    gsApp.get('/auth-me', async (req, res) => void res.json({ session: await gsAuth.auth(req, res) }));
    const gsServer = createServer(gsApp);

    const fe = config();
    const feAuth = AuthInit(fe.config);
    const handler = feAuth.auth(async () => new Response('page'));
    const feServer = createServer(toNodeHandler(new H3().all('/**', (event) => handler(event.req as Request))));

    return [
      { name: 'h3 createAuthMiddleware', base: await listen(h3Server), paths: ['/mw/page'], logger: h3.logger, server: h3Server },
      { name: 'h3 getSession', base: '', paths: ['/session'], logger: h3.logger, server: h3Server },
      { name: 'h3 requireSession', base: '', paths: ['/private'], logger: h3.logger, server: h3Server },
      { name: 'Express auth middleware', base: await listen(exServer), paths: ['/mw/page'], logger: ex.logger, server: exServer },
      { name: 'Express getSession(req, config, res)', base: await listen(gsServer), paths: ['/me'], logger: gs.logger, server: gsServer },
      { name: 'Express auth(req, res)', base: '', paths: ['/auth-me'], logger: ga.logger, server: gsServer },
      { name: 'fetch auth(handler)', base: await listen(feServer), paths: ['/mw/page'], logger: fe.logger, server: feServer },
    ];
  }

  for (const mode of ['refuse', 'blackhole'] as const satisfies FaultMode[]) {
    it(`${mode}: 503 with Retry-After, a page for browsers and JSON for clients, one log line per burst, nothing on the console`, async () => {
      const forms = await apps();
      for (const form of forms) form.base ||= forms.find((f) => f.server === form.server && f.base)!.base;
      const consoleLines = [vi.spyOn(console, 'error'), vi.spyOn(console, 'warn'), vi.spyOn(console, 'log'), vi.spyOn(console, 'info')];
      consoleLines.forEach((s) => s.mockImplementation(() => {}));
      db.proxy.mode = mode;
      try {
        for (const form of forms) {
          for (let i = 0; i < BURST; i++) {
            const browser = i % 2 === 0;
            const res = await fetch(`${form.base}${form.paths[0]}`, { headers: { cookie, accept: browser ? 'text/html,application/xhtml+xml' : 'application/json' } });
            const text = await res.text();
            expect(res.status, `${form.name}: ${text.slice(0, 200)}`).toBe(503);
            expect(res.headers.get('retry-after'), form.name).toMatch(/^\d+$/);
            if (browser) expect(text, form.name).toContain('Temporarily unavailable');
            else expect(JSON.parse(text), form.name).toMatchObject({ error: 'ServiceUnavailable' });
          }
        }
      } finally {
        db.proxy.mode = 'pass';
        consoleLines.forEach((s) => s.mockRestore());
        await Promise.all([...new Set(forms.map((f) => f.server))].map((server) => new Promise((r) => server.close(r))));
      }
      const calls = consoleLines.flatMap((s) => s.mock.calls);
      expect(calls, 'nothing but the logger writes').toEqual([]);
      for (const logger of new Set(forms.map((f) => f.logger))) {
        expect(logger.errorTypes(), 'one error logged per burst').toEqual(['ServiceUnavailable']);
      }
    });
  }
});
