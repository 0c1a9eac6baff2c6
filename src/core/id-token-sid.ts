// The `sid` (OP session) claim of an ID token authchart verified when it received it, for back-channel logout.

/**
 * The `sid` claim of an ID token authchart verified at sign-in (or refresh) and is storing now: read, not verified
 * again. Anything unreadable is no sid.
 */
export function sidOf(idToken: unknown): string | undefined {
  if (typeof idToken !== 'string') return undefined;
  try {
    // The second dot-separated part, sliced out without splitting the whole token.
    const start = idToken.indexOf('.') + 1;
    const end = start === 0 ? 0 : idToken.indexOf('.', start);
    const part = start === 0 ? '' : idToken.slice(start, end === -1 ? undefined : end);
    const payload = JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as { sid?: unknown };
    return typeof payload.sid === 'string' && payload.sid.length > 0 && payload.sid.length <= 512 ? payload.sid : undefined;
  } catch {
    return undefined;
  }
}
