// Flow runs as OpenTelemetry spans, when the app has the API and a tracer provider that records: a run is a span, each
// state it enters an event of that span, each invoked actor a child span, and the sign-in tail and the second factor
// spans of their own. Attributes are names from the code (provider, machine, state and actor ids, error types) and
// never a value from a request: no addresses, tokens, codes, user ids or error messages.
import type { Attributes, ProxyTracerProvider, Span, Tracer, TracerProvider } from '@opentelemetry/api';
import type { InspectionEvent, Snapshot } from 'xstate';
import { AuthError } from '../../../core/errors.js';
import { otelApi, type Otel } from '../../../core/otel.js';

const TRACER = 'authchart';

/** Attribute names, stable: dashboards and queries key on them. */
export const SPAN_ATTRIBUTES = {
  provider: 'authchart.provider',
  machine: 'authchart.machine',
  version: 'authchart.flow.version',
  /** The flow id: the flow record's `id` and the activity records' `correlationId` (a random id, not a request value). */
  flowId: 'authchart.flow.id',
  outcome: 'authchart.outcome',
  errorType: 'authchart.error.type',
  state: 'authchart.state',
  event: 'authchart.event',
  actor: 'authchart.actor.id',
  actorLogic: 'authchart.actor.src',
} as const;

/**
 * One machine's span: the run's observer (observer.ts) tells it the states the machine entered and the inspection
 * events of the actors it invoked; it is ended with how the machine settled.
 */
export interface MachineSpan {
  /** The machine entered a state (its dot path), by an event of this type: an event of the span. */
  entered(state: string, event: string): void;
  /** An inspection event of an actor the machine runs (`@xstate.actor`, `@xstate.snapshot`): its child span. */
  actor(ev: InspectionEvent): void;
  /** A span for a stage machine (the sign-in tail, the second factor) below this one. */
  child(name: string, machine: string): MachineSpan;
  end(outcome: string, error?: unknown): void;
}

/** The error's type, never its message (messages can quote what a user typed). */
function errorTypeOf(error: unknown): string {
  if (error instanceof AuthError) return error.type;
  if (error instanceof Error) return error.name;
  return typeof error;
}

class RecordingMachineSpan implements MachineSpan {
  private readonly actors = new Map<object, Span>();

  constructor(
    private readonly api: Otel,
    private readonly tracer: Tracer,
    private readonly span: Span,
  ) {}

  entered(state: string, event: string): void {
    this.span.addEvent('authchart.state', { [SPAN_ATTRIBUTES.state]: state, [SPAN_ATTRIBUTES.event]: event });
  }

  actor(ev: InspectionEvent): void {
    if (ev.type === '@xstate.actor') {
      // An invoked actor: its invoke id and the logic's name in `setup`, both from the machine's code.
      const { id, src } = ev.actorRef as { id?: unknown; src?: unknown };
      const attributes: Attributes = {};
      if (typeof id === 'string') attributes[SPAN_ATTRIBUTES.actor] = id;
      if (typeof src === 'string') attributes[SPAN_ATTRIBUTES.actorLogic] = src;
      this.actors.set(ev.actorRef, this.startChild(`authchart.actor ${typeof src === 'string' ? src : typeof id === 'string' ? id : 'anonymous'}`, attributes));
      return;
    }
    if (ev.type !== '@xstate.snapshot') return;
    const span = this.actors.get(ev.actorRef);
    const snapshot = ev.snapshot as Snapshot<unknown>;
    if (!span || snapshot.status === 'active') return;
    this.actors.delete(ev.actorRef);
    endSpan(this.api, span, snapshot.status, snapshot.status === 'error' ? snapshot.error : undefined);
  }

  child(name: string, machine: string): MachineSpan {
    return new RecordingMachineSpan(this.api, this.tracer, this.startChild(name, { [SPAN_ATTRIBUTES.machine]: machine }));
  }

  end(outcome: string, error?: unknown): void {
    // Actors still running when the machine settled were stopped with it.
    for (const span of this.actors.values()) endSpan(this.api, span, 'stopped');
    this.actors.clear();
    endSpan(this.api, this.span, outcome, error);
  }

  private startChild(name: string, attributes: Attributes): Span {
    const { trace, context } = this.api;
    return this.tracer.startSpan(name, { attributes }, trace.setSpan(context.active(), this.span));
  }
}

function endSpan(api: Otel, span: Span, outcome: string, error?: unknown): void {
  span.setAttribute(SPAN_ATTRIBUTES.outcome, outcome);
  if (error !== undefined) {
    const type = errorTypeOf(error);
    span.setAttribute(SPAN_ATTRIBUTES.errorType, type);
    span.setStatus({ code: api.SpanStatusCode.ERROR, message: type });
  }
  span.end();
}

/**
 * The tracer that would record authchart's spans, or undefined when no tracer provider is registered. Until an app
 * registers one, the API hands out its own proxy provider, which answers no delegate tracer: that is known without
 * starting a span. The provider is looked up on every run, so one registered after authchart loaded is found.
 */
function tracerOf(api: Otel): Tracer | undefined {
  // Read as a plain provider that may be a proxy: a proxy from another copy of the API (or a future API without
  // the class) is recognised by its method, and any other provider is asked for its tracer directly.
  const provider = api.trace.getTracerProvider() as TracerProvider & Partial<Pick<ProxyTracerProvider, 'getDelegateTracer'>>;
  return typeof provider.getDelegateTracer === 'function' ? provider.getDelegateTracer(TRACER) : provider.getTracer(TRACER);
}

function spanIn(api: Otel | null, provider: string, machine: string, version: number | undefined, flowId?: string): MachineSpan | undefined {
  const tracer = api ? tracerOf(api) : undefined;
  if (!api || !tracer) return undefined;
  const attributes: Attributes = { [SPAN_ATTRIBUTES.provider]: provider, [SPAN_ATTRIBUTES.machine]: machine };
  if (version !== undefined) attributes[SPAN_ATTRIBUTES.version] = version;
  if (flowId !== undefined) attributes[SPAN_ATTRIBUTES.flowId] = flowId;
  const span = tracer.startSpan('authchart.flow', { attributes });
  // Not sampled: a non-recording span drops everything, so skip the work altogether.
  if (!span.isRecording()) return undefined;
  return new RecordingMachineSpan(api, tracer, span);
}

/**
 * The span of one flow run once a tracer provider is registered (./flow-span.ts checks that before loading this
 * module), or undefined when nothing would record it: the API is not installed, or no tracer provider records. The
 * first call of a process may wait for the API's import.
 *
 * @example
 * const opening = openFlowSpan('github', 'oauth', 1); const span = opening instanceof Promise ? await opening : opening
 */
export function openFlowSpan(provider: string, machine: string, version: number | undefined, flowId?: string): MachineSpan | undefined | Promise<MachineSpan | undefined> {
  const api = otelApi();
  return api instanceof Promise ? api.then((loaded) => spanIn(loaded, provider, machine, version, flowId)) : spanIn(api, provider, machine, version, flowId);
}
