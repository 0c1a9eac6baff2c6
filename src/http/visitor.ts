// Who is visiting a page: signed in or not, and as whom, for the pages that greet a signed-in visitor.
import { strategyFor } from '../session/strategy.js';
import type { AuthRequest } from './request.js';

/**
 * Whether the visitor is signed in and as whom (address, else name), read only when the request carries a session
 * cookie: a page view without one costs no lookup.
 *
 * @example
 * const { who } = await readVisitor(req)
 */
export async function readVisitor(req: AuthRequest): Promise<{ signedIn: boolean; who?: string }> {
  const name = req.cookieOptions.sessionToken.name;
  if (!Object.keys(req.cookies).some((c) => c === name || c.startsWith(`${name}.`))) return { signedIn: false };
  const session = await Promise.resolve(strategyFor(req).read(req)).catch(() => null);
  const who = session?.user?.email ?? session?.user?.name;
  return { signedIn: Boolean(session), who: typeof who === 'string' && who ? who : undefined };
}
