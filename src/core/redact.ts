// Secrets and tokens are taken out of whatever goes to a logger, before any logger sees it, debug or not: a custom
// logger (a log shipper, an error tracker) must never receive a session token, a provider's token, a code or a secret.
// Copy-on-write: a value with nothing to take out is handed on as it is (the same object).

/** What a taken-out value becomes. */
export const REDACTED = '[redacted]';

// Keys whose value is a credential wherever they appear: provider tokens (access_token, id_token, refresh_token),
// session and verification tokens, codes, PKCE verifiers, nonces, secrets, passwords, keys, hashes, the
// values of the flow store, cookies and authorization headers.
const SECRET_KEY = /token|secret|passw|verifier|^code$|code_?hash|^otp$|nonce|^key$|private|hash|^value$|cookie|authorization|assertion|credential|^sid$|jti/i;

const MAX_DEPTH = 8;

function redactDeep(value: unknown, depth: number, seen: WeakSet<object>): unknown {
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH || seen.has(value)) return value;
  if (value instanceof Date || value instanceof Error || ArrayBuffer.isView(value)) return value;
  seen.add(value);
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    value.forEach((item, i) => {
      const r = redactDeep(item, depth + 1, seen);
      if (r !== item) (out ??= [...value])[i] = r;
    });
    return out ?? value;
  }
  let out: Record<string, unknown> | undefined;
  for (const [k, v] of Object.entries(value)) {
    const r = v !== undefined && v !== null && v !== '' && SECRET_KEY.test(k) ? REDACTED : redactDeep(v, depth + 1, seen);
    if (r !== v) (out ??= { ...(value as Record<string, unknown>) })[k] = r;
  }
  return out ?? value;
}

/**
 * `value` with every credential under a secret-looking key replaced by `[redacted]`, at any depth.
 *
 * @example
 * redact({ provider: 'github', access_token: 'gho_x' }) // { provider: 'github', access_token: '[redacted]' }
 */
export function redact<T>(value: T): T {
  return redactDeep(value, 0, new WeakSet()) as T;
}

// Adapter methods whose arguments are bare credentials (not under a key): a session token, a flow-store key (it
// names a token's hash) and value, a logout token's id.
const BARE_SECRETS: Record<string, readonly number[]> = {
  getSessionAndUser: [0],
  deleteSession: [0],
  setFlowValue: [0, 1],
  getFlowValue: [0],
  takeFlowValue: [0],
  useLogoutToken: [1],
};

/**
 * An adapter call's arguments as the debug log shows them: bare credentials and every secret-keyed field redacted.
 *
 * @example
 * logger.debug(`adapter_${method}`, redactAdapterArgs(method, args))
 */
export function redactAdapterArgs(method: string, args: unknown[]): unknown[] {
  const bare = BARE_SECRETS[method] ?? [];
  return redact(args.map((arg, i) => (bare.includes(i) && arg !== undefined && arg !== null ? REDACTED : arg)));
}
