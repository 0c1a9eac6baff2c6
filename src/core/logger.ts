// The logger: errors always, warnings always, debug only with `debug: true`; a custom logger replaces ours.
import { AuthError } from './errors.js';
import type { LoggerInstance } from './options.js';

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

/** Builds the logger from `config.logger` and `config.debug`. */
export function createLogger(custom: Partial<LoggerInstance> | undefined, debug: boolean): Logger {
  const error = custom?.error?.bind(custom) ?? defaultError;
  const warn = custom?.warn?.bind(custom) ?? ((code: string, message?: string) => console.warn(`${yellow}[authchart][warn][${code}]${reset}${message ? ` ${message}` : ''}`));
  const customDebug = custom?.debug?.bind(custom);
  // A custom debug function receives every debug message: it decides where they go.
  const debugEnabled = Boolean(customDebug) || debug;
  const debugFn = customDebug ?? (debug ? (message: string, metadata?: unknown) => console.debug(`${grey}[authchart][debug]:${reset} ${message}`, metadata === undefined ? '' : safeJson(metadata)) : () => {});
  return {
    debugEnabled,
    error(e) {
      try {
        error(e);
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
        debugFn(message, metadata);
      } catch {}
    },
  };
}
