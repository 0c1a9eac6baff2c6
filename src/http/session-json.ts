// The session route's body: exactly JSON.stringify(session), written directly for the shape the default session
// callback makes ({ user: { name, email, image }, expires, error? } of strings), since on Node 20 JSON.stringify
// costs a session check ~0.5 µs on it. Anything else, or any string that would need escaping, goes to JSON.stringify.

// Plain printable ASCII but `"` and `\`: JSON.stringify writes such a string as it is, between quotes.
const NEEDS_ESCAPING = /[^\x20\x21\x23-\x5b\x5d-\x7e]/;
const SESSION_KEYS = ['user', 'expires', 'error'] as const;
const USER_KEYS = ['name', 'email', 'image'] as const;

/** A JSON value of a string or null, or undefined for a value this writer leaves to JSON.stringify. */
function scalar(value: unknown): string | undefined {
  if (typeof value === 'string') return NEEDS_ESCAPING.test(value) ? JSON.stringify(value) : `"${value}"`;
  return value === null ? 'null' : undefined;
}

/**
 * How many of `keys` a plain object has, when its enumerable keys (inherited ones included) are exactly the first so
 * many of `keys` in that order and it has no `toJSON`; -1 for anything else.
 */
function keysOf(value: unknown, keys: readonly string[]): number {
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype || 'toJSON' in value) return -1;
  let at = 0;
  for (const key in value) {
    if (key !== keys[at]) return -1;
    at++;
  }
  return at;
}

/**
 * `JSON.stringify(session)`, the same text whatever `session` is.
 *
 * @example
 * sessionJson({ user: { name: 'Ada', email: 'ada@example.test', image: undefined }, expires: '2026-01-01T00:00:00.000Z' })
 * // '{"user":{"name":"Ada","email":"ada@example.test"},"expires":"2026-01-01T00:00:00.000Z"}'
 */
export function sessionJson(session: unknown): string {
  const present = keysOf(session, SESSION_KEYS);
  if (present < 2) return JSON.stringify(session);
  const { user } = session as { user: Record<string, unknown> };
  if (keysOf(user, USER_KEYS) !== 3) return JSON.stringify(session);
  let out = '{"user":{';
  let first = true;
  for (const key of USER_KEYS) {
    const value = user[key];
    if (value === undefined) continue;
    const text = scalar(value);
    if (text === undefined) return JSON.stringify(session);
    out += first ? `"${key}":${text}` : `,"${key}":${text}`;
    first = false;
  }
  const expires = scalar((session as { expires: unknown }).expires);
  if (expires === undefined) return JSON.stringify(session);
  out += `},"expires":${expires}`;
  const error = present === 3 ? (session as { error: unknown }).error : undefined;
  if (error !== undefined) {
    const text = scalar(error);
    if (text === undefined) return JSON.stringify(session);
    out += `,"error":${text}`;
  }
  return `${out}}`;
}
