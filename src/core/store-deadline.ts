// The deadline on every store call, and how an outage is told from any other store failure: a call that does not
// answer in time, or fails because the store cannot be reached, is a ServiceUnavailable (503), never a hang.
import { AdapterError, ServiceUnavailable } from './errors.js';

/** Default deadline of one store call, in ms: well under the 30 s a sign-in flow may take. */
export const DEFAULT_STORE_TIMEOUT = 5000;

/** Seconds a client is asked to wait after an outage answer. */
export const OUTAGE_RETRY_AFTER = 5;

// Errors that mean "the store cannot be reached", by code: Node's socket errors, pg-pool's connect timeout, and the
// SQLSTATE classes of a lost connection (08), exhausted resources (53), a cancelled statement or a server going down
// (57: statement_timeout, admin shutdown), and Redis clients refusing to queue while disconnected.
const networkCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNABORTED', 'NR_CLOSED', 'ClientClosedError']);

/** A ServiceUnavailable asking the client to wait {@link OUTAGE_RETRY_AFTER} seconds. */
export function outage(message: string | Error, cause: Record<string, unknown>): ServiceUnavailable {
  const error = new ServiceUnavailable(message, cause);
  error.retryAfter = OUTAGE_RETRY_AFTER;
  return error;
}

function codeOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Whether a store's error means it cannot be reached (as opposed to refusing what it was asked). Looks at the error
 * and the errors it wraps (`cause`, pg's `AggregateError` of several addresses).
 */
export function isOutage(err: unknown, depth = 0): boolean {
  if (err instanceof ServiceUnavailable) return true;
  if (!err || typeof err !== 'object' || depth > 4) return false;
  const code = codeOf(err);
  if (code && (networkCodes.has(code) || /^(08|53|57)[0-9A-Z]{3}$/.test(code))) return true;
  const inner = (err as { cause?: unknown }).cause;
  if (inner && typeof inner === 'object' && isOutage((inner as { err?: unknown }).err ?? inner, depth + 1)) return true;
  const errors = (err as { errors?: unknown }).errors;
  return Array.isArray(errors) && errors.some((e) => isOutage(e, depth + 1));
}

/**
 * Runs one store call against a deadline. Past it, the caller gets a ServiceUnavailable at once; the call itself
 * is left to finish or fail on its own (its result is ignored), which is why writes that must not outlive the
 * answer are made atomic by the store (see docs/store-faults.md).
 *
 * @example
 * const row = await withDeadline(() => adapter.getSessionAndUser(token), 5000, 'getSessionAndUser')
 */
export async function withDeadline<T>(work: () => Promise<T>, timeout: number, what: string): Promise<T> {
  if (!(timeout > 0) || !Number.isFinite(timeout)) return work();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(outage(`The store did not answer ${what} within ${timeout} ms.`, { method: what, timeout }));
    }, timeout);
  });
  const running = work();
  // A call abandoned at its deadline may still fail later: that failure is no one's to handle.
  running.catch(() => {});
  try {
    return await Promise.race([running, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** The error a store failure becomes: ServiceUnavailable when it is an outage, else an AdapterError. */
export function storeError(method: string, thrown: unknown): AdapterError {
  if (thrown instanceof AdapterError && (thrown instanceof ServiceUnavailable || !isOutage(thrown))) return thrown;
  const err = thrown instanceof AdapterError ? (thrown.cause?.err ?? thrown) : thrown instanceof Error ? thrown : new Error(String(thrown));
  if (isOutage(err)) return outage(err, { method });
  return new AdapterError(err, { method });
}
