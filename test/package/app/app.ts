// A small app written against the published package only: what the consumer test (and the other runtimes' tests)
// install from the packed tarball, type-check and run. It signs in with credentials through the fetch handler and
// reads the session back, as a browser would: CSRF token, form post, cookies carried by hand.
import { AuthInit, Credentials, type AuthConfig, type Session } from 'authchart';
import { GitHub } from 'authchart/providers';
import Google, { type GoogleProfile } from 'authchart/providers/google';
import { adapterMethods } from 'authchart/adapters';
import { toMermaid } from 'authchart/devtools';
import type { ServerAuth } from 'authchart/node';

export const config: AuthConfig = {
  secret: 'consumer-test-secret-0123456789-0123456789',
  trustHost: true,
  basePath: '/auth',
  providers: [
    Credentials({
      credentials: { username: { label: 'Name' }, password: { label: 'Password', type: 'password' } },
      authorize: (c) => (c.password === 'open sesame' ? { id: '1', name: String(c.username), email: 'ada@example.test' } : null),
    }),
    GitHub({ clientId: 'id', clientSecret: 'secret' }),
    // A preset from its own subpath (as @auth/core/providers/google), typed by its declarations.
    Google({ clientId: 'id', clientSecret: 'secret', profile: (p: GoogleProfile) => ({ id: p.sub, email: p.email }) }),
  ],
};

export const { handlers, auth } = AuthInit(config);

/** The names every export this app touched has, so the subpaths are used and not only type-checked. */
export const touched = { adapterMethods: adapterMethods.length > 0, toMermaid: typeof toMermaid, node: null as ReturnType<typeof ServerAuth> | null };

/** Signs in as `name` through `handle` (the fetch handler) and answers what GET /auth/session says after. */
export async function signInAndReadSession(handle: (request: Request) => Promise<Response>, name: string, origin = 'http://localhost:3000'): Promise<{ status: number; location: string | null; session: Session | null }> {
  const jar = new Map<string, string>();
  const send = async (path: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    headers.set('cookie', [...jar].map(([k, v]) => `${k}=${v}`).join('; '));
    const response = await handle(new Request(new URL(path, origin), { ...init, headers, redirect: 'manual' }));
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair.indexOf('=');
      jar.set(pair.slice(0, at), pair.slice(at + 1));
    }
    return response;
  };
  const { csrfToken } = (await (await send('/auth/csrf')).json()) as { csrfToken: string };
  const form = new URLSearchParams({ csrfToken, username: name, password: 'open sesame', callbackUrl: `${origin}/home` });
  const signIn = await send('/auth/callback/credentials', { method: 'POST', body: form, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  const session = (await (await send('/auth/session')).json()) as Session | null;
  return { status: signIn.status, location: signIn.headers.get('location'), session };
}
