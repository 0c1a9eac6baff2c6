// The OpenTelemetry API, when the app has it installed (an optional peer): imported on the first flow run that a
// registered tracer provider could record, never at module level, and its absence remembered, so an app without it
// pays one failed import per process and no more.
import type * as OtelApi from '@opentelemetry/api';

/** The API module as authchart uses it. */
export type Otel = typeof OtelApi;

let known: Otel | null | undefined;
let loading: Promise<Otel | null> | undefined;

/**
 * The OpenTelemetry API, or null when it cannot be loaded (not installed, or failing to load): tracing is then off
 * for the life of the process. Synchronous after the first call settles.
 *
 * @example
 * const api = await otelApi(); const span = api?.trace.getTracer('authchart').startSpan('x')
 */
export function otelApi(): Otel | null | Promise<Otel | null> {
  if (known !== undefined) return known;
  loading ??= import('@opentelemetry/api').then(
    (m) => (known = m),
    () => (known = null),
  );
  return loading;
}

// Where every copy of API 1.x keeps what the app registered (its tracer provider under `trace`): a global, so it is
// read without importing the API.
const REGISTRY = Symbol.for('opentelemetry.js.api.1');

/**
 * Whether the app has registered a global tracer provider (through any copy of API 1.x). Without one nothing records,
 * so the API need not be imported (about 60 files) to learn it. Read on every call: a provider registered later is seen.
 *
 * @example
 * if (!tracerProviderRegistered()) return undefined // no span
 */
export function tracerProviderRegistered(): boolean {
  return (globalThis as { [REGISTRY]?: { trace?: unknown } })[REGISTRY]?.trace !== undefined;
}
