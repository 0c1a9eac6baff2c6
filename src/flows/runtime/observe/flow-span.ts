// Whether a flow run gets a span, decided without loading the tracing code: until the app registers a tracer provider
// nothing records, and a run costs one global read. The spans themselves (./spans.ts, with the OpenTelemetry API it
// imports) load with the first run that a registered provider could record, so an app that traces nothing never
// parses them: the first sign-in's chunk stays free of them.
import { tracerProviderRegistered } from '../../../core/otel.js';
import type { MachineSpan } from './spans.js';

type Spans = typeof import('./spans.js');
let spans: Spans | undefined;
let loading: Promise<Spans> | undefined;

/**
 * The span of one flow run, or undefined when nothing would record it: the API is not installed, no tracer provider
 * is registered, or the sampler dropped it. Undefined costs the run nothing (no inspection is attached for it).
 * Synchronous once the tracing code and the API have loaded (the first traced run of a process waits for them);
 * without a provider it starts no span, loads nothing and allocates nothing.
 *
 * @example
 * const opening = flowSpan('github', 'oauth', 1); const span = opening instanceof Promise ? await opening : opening
 */
export function flowSpan(provider: string, machine: string, version: number | undefined, flowId?: string): MachineSpan | undefined | Promise<MachineSpan | undefined> {
  // No provider registered: the API's own proxy would answer no tracer, so neither it nor the spans are loaded.
  if (!tracerProviderRegistered()) return undefined;
  if (spans) return spans.openFlowSpan(provider, machine, version, flowId);
  loading ??= import('./spans.js').then((m) => (spans = m));
  return loading.then((m) => m.openFlowSpan(provider, machine, version, flowId));
}

/**
 * Runs `run` inside the span of one flow run, when one records, and ends the span with the outcome `ended` reads from
 * the result (or `thrown`). When nothing records, `run` gets no span and nothing else happens.
 *
 * @example
 * const settled = await inFlowSpan('github', 'token-refresh', undefined, (span) => settle(span), (s) => ({ outcome: s.kind }))
 */
export async function inFlowSpan<T>(
  provider: string,
  machine: string,
  version: number | undefined,
  run: (span: MachineSpan | undefined) => Promise<T>,
  ended: (result: T) => { outcome: string; error?: unknown },
  flowId?: string,
): Promise<T> {
  const opening = flowSpan(provider, machine, version, flowId);
  const span = opening instanceof Promise ? await opening : opening;
  if (!span) return run(undefined);
  let result: T;
  try {
    result = await run(span);
  } catch (err) {
    span.end('thrown', err);
    throw err;
  }
  const { outcome, error } = ended(result);
  span.end(outcome, error);
  return result;
}
