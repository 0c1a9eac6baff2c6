// The default callbacks: allow sign-in, keep redirects on this origin, pass the token through,
// and expose only name, e-mail and image in the session.
import type { CallbacksOptions, SessionCallbackParams } from './options.js';
import type { JWT, Session } from './types.js';

/**
 * Only relative URLs and URLs on `baseUrl`'s origin are allowed; anything else becomes `baseUrl`.
 * Relative URLs that a browser would read as another host (`//evil`, `/\evil`) are refused, and so are
 * same-origin paths that turn into one once percent-decoded (`/%5Cevil`), in case a later hop decodes them.
 */
export function sameOriginRedirect({ url, baseUrl }: { url: string; baseUrl: string }): string {
  const base = new URL(baseUrl);
  // Browsers strip tabs/newlines and treat "\" like "/": normalize before judging.
  const cleaned = String(url).replace(/[\t\n\r]/g, '').trim();
  let target: URL;
  try {
    if (cleaned.startsWith('/')) {
      if (cleaned.startsWith('//') || cleaned.startsWith('/\\')) return baseUrl;
      target = new URL(cleaned, base);
    } else {
      target = new URL(cleaned);
    }
  } catch {
    return baseUrl;
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return baseUrl;
  if (target.origin !== base.origin || pathLeadsOffSite(target.pathname)) return baseUrl;
  return target.href;
}

/** Whether a path, decoded up to three times, starts like a protocol-relative URL (`//host`, `/\host`). */
function pathLeadsOffSite(pathname: string): boolean {
  let path = pathname;
  for (let i = 0; i < 3; i++) {
    if (/^\/[\/\\]/.test(path)) return true;
    let decoded: string;
    try {
      decoded = decodeURIComponent(path).replace(/[\t\n\r]/g, '');
    } catch {
      return true;
    }
    if (decoded === path) return false;
    path = decoded;
  }
  return /^\/[\/\\]/.test(path);
}

function defaultSession({ session, token, user }: SessionCallbackParams): Session {
  const source: { name?: unknown; email?: unknown; image?: unknown; picture?: unknown } = (user ?? token ?? {}) as JWT;
  const image = user ? user.image : (token as JWT | undefined)?.picture;
  const out: Session = {
    user: {
      name: (source.name as string | null | undefined) ?? undefined,
      email: (source.email as string | null | undefined) ?? undefined,
      image: (image as string | null | undefined) ?? undefined,
    },
    expires: session.expires,
  };
  // Auth.js's field for a failed provider-token refresh (set by authchart, never by a client): kept.
  if (session.error === 'RefreshTokenError') out.error = session.error;
  return out;
}

export const defaultCallbacks: Required<Omit<CallbacksOptions, 'authorized'>> = {
  signIn: () => true,
  redirect: sameOriginRedirect,
  session: defaultSession,
  jwt: ({ token }) => token,
};
