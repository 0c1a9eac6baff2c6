// The logger: errors always, warnings always, debug only with `debug: true`; a custom logger replaces ours. Debug
// metadata is redacted (core/redact.ts) before any of them sees it.
import { AuthError, ServiceUnavailable } from './errors.js';
import type { LoggerInstance } from './options.js';
import { redact } from './redact.js';

/** The logger every layer uses. `debug` is a no-op unless debug mode is on. */
export interface Logger extends LoggerInstance {
  /** True when debug output is wanted (lets callers skip building expensive metadata). */
  readonly debugEnabled: boolean;
}

const red = '\x1b[31m';
const yellow = '\x1b[33m';
const grey = '\x1b[90m';
const reset = '\x1b[0m';

function defaultError(error: Error): void {
  const type = error instanceof AuthError ? error.type : error.name;
  console.error(`${red}[authchart][error]${reset} ${type}: ${error.message}`);
  const cause = (error as { cause?: unknown }).cause;
  if (cause && typeof cause === 'object') {
    const { err, ...details } = cause as Record<string, unknown>;
    if (err instanceof Error && err.stack) console.error(`${red}[authchart][cause]${reset}:`, err.stack);
    if (Object.keys(details).length) console.error(`${red}[authchart][details]${reset}:`, safeJson(details));
  }
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return String(value);
  }
}

/** While a store is down, at most one of its outage errors is logged per this many ms; the rest are counted. */
export const STORE_ERROR_WINDOW_MS = 10_000;

/**
 * Counts outage errors (`ServiceUnavailable`) so an outage logs one error per window and then how many it held back,
 * not one line per request (an outage of a few seconds under load is hundreds of requests). Any other store error
 * (a refused statement, a broken adapter) is logged every time: each may be a different bug.
 */
function storeErrorWindow(warn: (code: string, message?: string) => void): (e: Error) => boolean {
  let opened = -Infinity;
  let held = 0;
  return (e) => {
    if (!(e instanceof ServiceUnavailable)) return true;
    const now = Date.now();
    if (now - opened < STORE_ERROR_WINDOW_MS) {
      held++;
      return false;
    }
    if (held > 0) warn('store-errors', `${held} more store error${held === 1 ? '' : 's'} in ${Math.round((now - opened) / 1000)} s were not logged one by one.`);
    opened = now;
    held = 0;
    return true;
  };
}

/** Builds the logger from `config.logger` and `config.debug`. */
export function createLogger(custom: Partial<LoggerInstance> | undefined, debug: boolean): Logger {
  const error = custom?.error?.bind(custom) ?? defaultError;
  const warn = custom?.warn?.bind(custom) ?? ((code: string, message?: string) => console.warn(`${yellow}[authchart][warn][${code}]${reset}${message ? ` ${message}` : ''}`));
  const customDebug = custom?.debug?.bind(custom);
  // A custom debug function receives every debug message: it decides where they go.
  const debugEnabled = Boolean(customDebug) || debug;
  const debugFn = customDebug ?? (debug ? (message: string, metadata?: unknown) => console.debug(`${grey}[authchart][debug]:${reset} ${message}`, metadata === undefined ? '' : safeJson(metadata)) : () => {});
  const shouldLog = storeErrorWindow((code, message) => {
    try {
      warn(code, message);
    } catch {}
  });
  return {
    debugEnabled,
    error(e) {
      try {
        if (shouldLog(e)) error(e);
      } catch {
        // A broken logger must never break a request.
      }
    },
    warn(code, message) {
      try {
        warn(code, message);
      } catch {}
    },
    debug(message, metadata) {
      try {
        // Redacted before any logger sees it, whoever wrote the call: no token reaches a custom debug.
        debugFn(message, redact(metadata));
      } catch {}
    },
  };
}
