// The demo app: an h3 app with authchart at /auth, a home page showing who is signed in, a protected page, and
// authchart/client served to the pages (/_client/). server.ts runs it; the browser tests start it in process.
import { H3, getCookie, serve } from 'h3';
import { createAuthHandler, createAuthMiddleware, getSession, requireRecentSignIn } from '../../src/index.js';
import { clientAssets } from './client-assets.js';
import { createDemoConfig } from './config.js';
import { devicesCard } from './devices.js';
import { homePage, protectedPage, securityPage } from './pages.js';
import { faviconResponse } from './style.js';

const html = (body: string) => new Response(body, { headers: { 'content-type': 'text/html; charset=utf-8' } });

export interface RunningDemo {
  /** What is running, for the console. */
  describe(): string[];
  close(): Promise<void>;
}

/**
 * Starts the demo on `port` (its IdP on `DEMO_IDP_PORT`, else the next port).
 *
 * @example
 * const demo = await startDemo({ port: 3000 }); ...; await demo.close()
 */
export async function startDemo(options: { port: number; hostname?: string; env?: NodeJS.ProcessEnv }): Promise<RunningDemo> {
  const { port, env = process.env } = options;
  const { config, services, describe } = await createDemoConfig(port, env);
  const app = new H3();
  app.all('/auth/**', createAuthHandler(config));
  app.use('/protected', createAuthMiddleware(config));
  app.get('/protected', async (event) => html(protectedPage(await getSession(event, config), services)));
  // Browsers ask every page's origin for one; without it each page view logs a failed request.
  app.get('/favicon.ico', () => faviconResponse());
  // Step-up: a session verified over 5 minutes ago goes through the factor check (or signs in again) and back.
  app.get('/account/security', async (event) => html(securityPage(await requireRecentSignIn(event, config, { maxAge: 300 }))));
  app.get('/', async (event) => {
    const session = await getSession(event, config);
    const devices = session?.user ? await devicesCard(event, config) : '';
    return html(await homePage(session, services, getCookie(event, 'authchart.session-token'), devices));
  });
  app.get('/_client/:file', clientAssets());
  for (const route of services.routes) app.get(route.path, route.handler);

  const server = serve(app, { port, hostname: options.hostname ?? 'localhost', silent: true });
  try {
    await server.ready();
  } catch (err) {
    await services.close();
    throw err;
  }
  return {
    describe,
    async close() {
      await server.close(true);
      await services.close();
    },
  };
}
