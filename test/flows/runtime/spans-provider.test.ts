// With @opentelemetry/api installed, whether a flow is traced follows the tracer provider registered at the time of
// the run: none, and a run starts no span (not even a non-recording one) and waits for nothing; one registered after
// authchart loaded, and the next run is a span; one whose sampler drops everything, and nothing is recorded.
import { ProxyTracer, ProxyTracerProvider, trace } from '@opentelemetry/api';
import { AlwaysOffSampler, BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { otelApi } from '../../../src/core/otel.js';
import { flowSpan, SPAN_ATTRIBUTES } from '../../../src/flows/runtime/spans.js';
import { Credentials } from '../../../src/providers/credentials.js';
import { testAuth } from '../../support/auth-app.js';

const app = testAuth({ providers: [Credentials({ credentials: { username: {}, password: {} }, authorize: (c) => (c.password === 'pw' ? { id: 'u1', name: 'Ada' } : null) })] });

async function signIn(): Promise<void> {
  const client = app.newClient();
  const csrfToken = await app.csrfToken(client);
  expect((await client.post('/auth/callback/credentials', { csrfToken, username: 'ada', password: 'pw' })).status).toBe(302);
}

function register(options: ConstructorParameters<typeof BasicTracerProvider>[0] = {}) {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ ...options, spanProcessors: [new SimpleSpanProcessor(exporter)] });
  expect(trace.setGlobalTracerProvider(provider)).toBe(true);
  return { exporter, provider };
}

afterEach(() => {
  trace.disable();
  vi.restoreAllMocks();
});

describe('flow spans and the tracer provider', () => {
  it('does not import the API while no tracer provider is registered: the first run answers at once, with no span', async () => {
    // Fresh copies of the modules: the API not yet imported by authchart in this process.
    vi.resetModules();
    const fresh = await import('../../../src/flows/runtime/spans.js');
    expect(fresh.flowSpan('credentials', 'credentials', 1)).toBeUndefined();
    // Registered later: the next run imports the API and records.
    const { exporter } = register();
    const opening = fresh.flowSpan('credentials', 'credentials', 1);
    expect(opening).toBeInstanceOf(Promise);
    const span = await opening;
    expect(span).toBeDefined();
    span!.end('done');
    expect(exporter.getFinishedSpans().map((s) => s.name)).toEqual(['authchart.flow']);
  });

  it('starts no span at all while no tracer provider is registered, and answers without waiting once the API is loaded', async () => {
    // Whatever the API would hand out without a provider: a proxy tracer, which starts non-recording spans.
    const getTracer = vi.spyOn(ProxyTracerProvider.prototype, 'getTracer');
    const startSpan = vi.spyOn(ProxyTracer.prototype, 'startSpan');
    await signIn();
    await signIn();
    expect(await otelApi()).not.toBeNull();
    expect(getTracer).not.toHaveBeenCalled();
    expect(startSpan).not.toHaveBeenCalled();
    // The API has loaded: the hook is a plain call, with no promise for the run to await.
    const span = flowSpan('credentials', 'credentials', 1);
    expect(span).toBeUndefined();
  });

  it('traces the next run once a provider is registered after authchart loaded, and stops when it is removed', async () => {
    await signIn();
    const { exporter, provider } = register();
    await signIn();
    await provider.forceFlush();
    const flows = exporter.getFinishedSpans().filter((s) => s.name === 'authchart.flow');
    expect(flows.map((s) => [s.attributes[SPAN_ATTRIBUTES.provider], s.attributes[SPAN_ATTRIBUTES.outcome]])).toEqual([['credentials', 'signedIn']]);
    expect(exporter.getFinishedSpans().some((s) => s.name === 'authchart.signin')).toBe(true);

    trace.disable();
    exporter.reset();
    await signIn();
    await provider.forceFlush();
    expect(exporter.getFinishedSpans()).toEqual([]);
    expect(flowSpan('credentials', 'credentials', 1)).toBeUndefined();
  });

  it('records nothing and attaches nothing when the provider samples nothing', async () => {
    const { exporter, provider } = register({ sampler: new AlwaysOffSampler() });
    // The first run a provider could record may wait for the tracing code to load (observe/flow-span.ts); the next
    // answer at once.
    expect(await flowSpan('credentials', 'credentials', 1)).toBeUndefined();
    expect(flowSpan('credentials', 'credentials', 1)).toBeUndefined();
    await signIn();
    await provider.forceFlush();
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});
