// An authchart configuration served over real HTTP on 127.0.0.1, so requests carry a real socket address (what
// the throttle counts by), with a tiny cookie-keeping client and CSRF helper.
import { createServer } from 'node:http';
import { resolveConfig } from '../../src/core/config.js';
import type { AuthConfig } from '../../src/core/options.js';
import type { Env } from '../../src/core/env.js';
import { createAuthApp } from '../../src/http/app.js';
import { toWebRequest, writeWebResponse } from '../../src/http/integrations/node.js';
import { closeHttpServer, freePort, listenLoopback } from '../e2e/peers/net.js';

export interface LoopbackApp {
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  fetch(path: string, init?: RequestInit & { cookie?: string }): Promise<Response>;
  /** A fresh CSRF token and the cookie that goes with it. */
  csrf(headers?: Record<string, string>): Promise<{ token: string; cookie: string }>;
  /** POSTs a form with a fresh CSRF pair; `headers` go on both requests. */
  postForm(path: string, fields: Record<string, string>, headers?: Record<string, string>): Promise<Response>;
  close(): Promise<void>;
}

/**
 * Serves `config` at a free loopback port. `env` is the configuration's environment (AUTH_URL names the port as
 * `{origin}`).
 *
 * @example
 * const app = await serveLoopback({ providers, secret, trustHost: true })
 */
export async function serveLoopback(config: AuthConfig, env: Env = {}): Promise<LoopbackApp> {
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const resolvedEnv = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v?.replace('{origin}', origin)]));
  const app = createAuthApp(resolveConfig(config, { env: resolvedEnv, defaultBasePath: '/auth' }));
  const server = createServer((req, res) => {
    void (async () => writeWebResponse(res, await app.fetch(toWebRequest(req))))().catch(() => {
      res.statusCode = 599;
      res.end();
    });
  });
  await listenLoopback(server, port);
  const fetchApp = (path: string, init: RequestInit & { cookie?: string } = {}) => {
    const headers = new Headers(init.headers);
    if (init.cookie) headers.set('cookie', init.cookie);
    return fetch(`${origin}${path}`, { ...init, headers, redirect: 'manual' });
  };
  const csrf = async (headers: Record<string, string> = {}) => {
    const res = await fetchApp('/auth/csrf', { headers });
    const { csrfToken } = (await res.json()) as { csrfToken: string };
    const cookie = res.headers.getSetCookie().map((c) => c.split(';', 1)[0]).join('; ');
    return { token: csrfToken, cookie };
  };
  return {
    origin,
    fetch: fetchApp,
    csrf,
    async postForm(path, fields, headers = {}) {
      const { token, cookie } = await csrf(headers);
      return fetchApp(path, {
        method: 'POST',
        cookie,
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams({ csrfToken: token, ...fields }).toString(),
      });
    },
    close: () => closeHttpServer(server),
  };
}
