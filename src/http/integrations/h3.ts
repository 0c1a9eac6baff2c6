// h3 integration: a handler to mount at `{basePath}/**` in an H3 app or a Nitro route (h3 v2, and h3 v1 events
// as Nitro 2 and Nuxt pass them).
import { defineHandler, type H3Event } from 'h3';
import type { ConfigInput } from '../auth.js';
import { appendCookies } from './fetch.js';
import { appendNodeSetCookie, isH3V1Event } from './h3-v1.js';
import { instanceFor } from './instances.js';
import { fromNodeRequest } from './node-request.js';

/** The web Request of an h3 event: h3 v2 has it; an h3 v1 event's Node request is bridged. */
async function requestOf(event: H3Event): Promise<Request> {
  return isH3V1Event(event) ? fromNodeRequest(event.node.req) : (event.req as Request);
}

/**
 * An h3 handler serving authchart's routes. The same handler serves h3 v2 (H3 apps, Nitro 3) and h3 v1 events
 * (Nitro 2, Nuxt), which are told apart by their shape.
 *
 * @example
 * const app = new H3(); app.all('/auth/**', createAuthHandler({ providers, secret, trustHost: true }))
 * // Nitro (routes/auth/[...].ts) or Nuxt (server/routes/auth/[...].ts):
 * export default createAuthHandler(config)
 */
export function createAuthHandler(config: ConfigInput) {
  const instance = instanceFor(config, '/auth');
  return defineHandler(async (event) => instance.handle(await requestOf(event)));
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
    const { setCookie, verdict } = await instance.authorize(await requestOf(event));
    // h3 merges event.res.headers into whatever answers the request (errHeaders for error statuses);
    // a verdict carries its own cookies instead, so they are neither lost nor doubled.
    if (verdict) return appendCookies(verdict, setCookie);
    if (isH3V1Event(event)) return appendNodeSetCookie(event.node.res, setCookie);
    for (const line of setCookie) {
      event.res.headers.append('set-cookie', line);
      // h3 2.0.1 release candidates (what Nitro 3.0.0 pins) have no errHeaders.
      (event.res as { errHeaders?: Headers }).errHeaders?.append('set-cookie', line);
    }
  });
}
