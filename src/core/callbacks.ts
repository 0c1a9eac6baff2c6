// The default callbacks: allow sign-in, keep redirects on this origin, pass the token through,
// and expose only name, e-mail and image in the session.
import type { CallbacksOptions, SessionCallbackParams } from './options.js';
import type { JWT, Session } from './types.js';

/**
 * Only relative URLs and URLs on `baseUrl`'s origin are allowed; anything else becomes `baseUrl`.
 * Relative URLs that a browser would read as another host (`//evil`, `/\evil`) are refused.
 */
export function sameOriginRedirect({ url, baseUrl }: { url: string; baseUrl: string }): string {
  const base = new URL(baseUrl);
  // Browsers strip tabs/newlines and treat "\" like "/": normalize before judging.
  const cleaned = String(url).replace(/[\t\n\r]/g, '').trim();
  if (cleaned.startsWith('/') && !cleaned.startsWith('//') && !cleaned.startsWith('/\\')) {
    const resolved = new URL(cleaned, base);
    if (resolved.origin === base.origin) return resolved.href;
    return baseUrl;
  }
  try {
    const parsed = new URL(cleaned);
    if ((parsed.protocol === 'http:' || parsed.protocol === 'https:') && parsed.origin === base.origin) return parsed.href;
  } catch {
    // not an absolute URL
  }
  return baseUrl;
}

function defaultSession({ session, token, user }: SessionCallbackParams): Session {
  const source: { name?: unknown; email?: unknown; image?: unknown; picture?: unknown } = (user ?? token ?? {}) as JWT;
  const image = user ? user.image : (token as JWT | undefined)?.picture;
  return {
    user: {
      name: (source.name as string | null | undefined) ?? undefined,
      email: (source.email as string | null | undefined) ?? undefined,
      image: (image as string | null | undefined) ?? undefined,
    },
    expires: session.expires,
  };
}

export const defaultCallbacks: Required<Omit<CallbacksOptions, 'authorized'>> = {
  signIn: () => true,
  redirect: sameOriginRedirect,
  session: defaultSession,
  jwt: ({ token }) => token,
};
