import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { container as rootContainer, injectable } from 'tsyringe';
import { Retry, Step, StepInterceptor, Workflow } from 'waymark';
import { TracingStepInterceptor, traceRuns } from 'waymark/otel';
import { createTestRuntime, SimulatedCrash } from 'waymark/testing';

@injectable()
class Fetcher {
  static failures = 0;

  @Workflow({ name: 'fetcher', id: (id: string) => `fetcher-${id}` })
  async go(id: string): Promise<string> {
    const first = await this.call(`${id}/1`);
    return `${first} ${await this.call(`${id}/2`)}`;
  }

  @Step()
  @Retry({ maxAttempts: 2, backoff: { fixed: 1 } })
  async call(url: string): Promise<string> {
    // What an instrumented HTTP client does: a span in the active context.
    trace.getTracer('http-client').startSpan(`GET ${url}`).end();
    if (Fetcher.failures-- > 0) throw Object.assign(new Error('unavailable'), { status: 503 });
    return `got ${url}`;
  }
}

describe('TracingStepInterceptor', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const contextManager = new AsyncLocalStorageContextManager();
  const spans = (prefix: string) =>
    exporter.getFinishedSpans().filter((s) => s.name.startsWith(prefix));

  beforeAll(() => {
    context.setGlobalContextManager(contextManager.enable());
    trace.setGlobalTracerProvider(provider);
  });
  afterAll(async () => {
    trace.disable();
    context.disable();
    await provider.shutdown();
  });
  beforeEach(() => exporter.reset());

  const tracedContainer = () => {
    const scope = rootContainer.createChildContainer();
    scope.register(StepInterceptor, {
      useValue: new TracingStepInterceptor({ tracer: provider.getTracer('test') }),
    });
    return scope;
  };

  it('a span the step body starts is a child of the step attempt span, which records failures', async () => {
    const runtime = await createTestRuntime({ container: tracedContainer() });
    try {
      Fetcher.failures = 1;
      await expect(rootContainer.resolve(Fetcher).go('a')).resolves.toBe('got a/1 got a/2');
      const steps = spans('waymark.step call');
      expect(
        steps.map((s) => [s.attributes['waymark.seq'], s.attributes['waymark.attempt']]),
      ).toEqual([
        [0, 1],
        [0, 2],
        [1, 1],
      ]);
      expect(steps[0].attributes).toMatchObject({
        'waymark.run_id': 'fetcher-a',
        'waymark.step': 'call',
        'waymark.kind': 'method',
        'waymark.outcome': 'failed',
      });
      expect(steps[0].status.code).toBe(2);
      expect(steps[0].events.map((e) => e.name)).toEqual(['exception']);
      expect(steps[1].status.code).toBe(1);
      const requests = spans('GET ');
      expect(requests.map((s) => s.name)).toEqual(['GET a/1', 'GET a/1', 'GET a/2']);
      requests.forEach((request, i) => {
        expect(request.parentSpanContext?.spanId).toBe(steps[i].spanContext().spanId);
        expect(request.spanContext().traceId).toBe(steps[i].spanContext().traceId);
      });
    } finally {
      await runtime.close();
    }
  });

  it('with traceRuns, each attempt has one span, a child of the run span, active in the body', async () => {
    const runtime = await createTestRuntime({ container: tracedContainer() });
    const tracing = traceRuns(runtime, { tracer: provider.getTracer('test') });
    try {
      Fetcher.failures = 0;
      await rootContainer.resolve(Fetcher).go('b');
      const [run] = spans('waymark.run');
      const steps = spans('waymark.step');
      expect(steps).toHaveLength(2);
      for (const step of steps) {
        expect(step.parentSpanContext?.spanId).toBe(run.spanContext().spanId);
        expect(step.attributes['waymark.kind']).toBe('method');
      }
      expect(spans('GET ').map((s) => s.parentSpanContext?.spanId)).toEqual(
        steps.map((s) => s.spanContext().spanId),
      );
    } finally {
      tracing.dispose();
      await runtime.close();
    }
  });

  it('a step replayed from its checkpoint on resume makes no new span', async () => {
    let runtime = await createTestRuntime({ container: tracedContainer() });
    Fetcher.failures = 0;
    runtime.crash.afterCommit('Fetcher.call');
    await expect(rootContainer.resolve(Fetcher).go('c')).rejects.toThrow(SimulatedCrash);
    expect(spans('waymark.step').map((s) => s.attributes['waymark.seq'])).toEqual([0]);
    runtime = await runtime.restart();
    try {
      await expect(rootContainer.resolve(Fetcher).go('c')).resolves.toBe('got c/1 got c/2');
      expect(spans('waymark.step').map((s) => s.attributes['waymark.seq'])).toEqual([0, 1]);
      expect(spans('GET ').map((s) => s.name)).toEqual(['GET c/1', 'GET c/2']);
    } finally {
      await runtime.close();
    }
  });
});
