// h3 integration: a handler to mount at `{basePath}/**` in an H3 app or a Nitro route.
import { defineHandler } from 'h3';
import type { ConfigInput } from '../auth.js';
import { appendCookies } from './fetch.js';
import { instanceFor } from './instances.js';

/**
 * An h3 handler serving authchart's routes.
 *
 * @example
 * const app = new H3(); app.all('/auth/**', createAuthHandler({ providers, secret, trustHost: true }))
 */
export function createAuthHandler(config: ConfigInput) {
  const instance = instanceFor(config, '/auth');
  return defineHandler((event) => instance.handle(event.req as Request));
}

/**
 * h3 middleware that asks the `authorized` callback: false redirects to sign-in, a returned
 * Response wins, anything else lets the request through.
 *
 * @example
 * app.use('/dashboard/**', createAuthMiddleware({ ...config, callbacks: { authorized: ({ auth }) => Boolean(auth) } }))
 */
export function createAuthMiddleware(config: ConfigInput) {
  const instance = instanceFor(config, '/auth');
  return defineHandler(async (event) => {
    const { setCookie, verdict } = await instance.authorize(event.req as unknown as Request);
    // h3 merges event.res.headers into whatever answers the request (errHeaders for error statuses);
    // a verdict carries its own cookies instead, so they are neither lost nor doubled.
    if (verdict) return appendCookies(verdict, setCookie);
    for (const line of setCookie) {
      event.res.headers.append('set-cookie', line);
      event.res.errHeaders.append('set-cookie', line);
    }
  });
}
