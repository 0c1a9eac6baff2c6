// The fetch-based integration (`AuthInit`): route handlers on web Request/Response, the forms of `auth`
// (auth-forms.ts), and server-side signIn / signOut / update (server-actions.ts, loaded on their first call).
import { createAuthInstance, type ConfigInput } from '../auth.js';
import { createAuthFunction, type AuthFunction } from './auth-forms.js';
import { lazyServerActions } from './lazy-server-actions.js';
import type { ServerActions } from './server-actions.js';

export type { AuthenticatedRequest, AuthFunction, AuthHandler, NextFetch, PageContext } from './auth-forms.js';
export type { SignInOptions, SignOutOptions, SessionUpdate, AuthorizationParams } from './server-actions.js';

export interface AuthInitResult extends ServerActions {
  handlers: { GET: (request: Request) => Promise<Response>; POST: (request: Request) => Promise<Response> };
  /**
   * The session, or access decided by the `authorized` callback, in each form of spec section 4.2: `auth()`,
   * `auth(handler)`, `auth` as middleware (`auth(request)`, `auth(request, next)`, `app.use(auth)` in h3 or
   * Express), `auth(req, res)` and `auth({ req, res })`.
   */
  auth: AuthFunction;
  /** `auth(request)` under its old name: a verdict Response, or undefined to continue. */
  middleware: (request: Request) => Promise<Response | undefined>;
}

/** Adds Set-Cookie lines to a response, copying it when its headers are immutable (`Response.redirect()`). */
export function appendCookies(response: Response, lines: string[]): Response {
  if (!lines.length) return response;
  try {
    for (const line of lines) response.headers.append('set-cookie', line);
    return response;
  } catch {
    // Immutable headers (e.g. a fetched Response): copy it.
    const copy = new Response(response.body, response);
    for (const line of lines) copy.headers.append('set-cookie', line);
    return copy;
  }
}

/**
 * The fetch-based integration.
 *
 * @example
 * export const { handlers: { GET, POST }, auth, signIn, signOut } = AuthInit({ providers: [Credentials({ authorize })] })
 */
export function AuthInit(config: ConfigInput): AuthInitResult {
  const instance = createAuthInstance(config, { defaultBasePath: '/api/auth' });
  const handle = (request: Request) => instance.handle(request);
  const auth = createAuthFunction(instance);
  return {
    handlers: { GET: handle, POST: handle },
    auth,
    middleware: (request) => auth(request),
    ...lazyServerActions(instance),
  };
}
