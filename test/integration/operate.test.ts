import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { container as rootContainer, injectable, type DependencyContainer } from 'tsyringe';
import { Retry, Step, Workflow, WorkflowContext, Waymark, type Logger } from 'waymark';
import { traceRuns } from 'waymark/otel';
import { createTestRuntime, SimulatedCrash, type TestRuntime } from 'waymark/testing';
import { ALL_BACKENDS, createTestDatabase, type TestDatabase } from '../support/databases';

/** Counts step bodies per (run, step name). */
class Calls {
  readonly list: string[] = [];
  count(runId: string, step: string): number {
    return this.list.filter((c) => c === `${runId} ${step}`).length;
  }
}

@injectable()
class Report {
  static prompt = 'v1';

  constructor(
    private readonly calls: Calls,
    private readonly ctx: WorkflowContext,
  ) {}

  @Workflow({ name: 'report', id: (id: string) => `report-${id}` })
  async write(id: string): Promise<string[]> {
    const out: string[] = [];
    for (const part of ['gather', 'outline', 'draft', 'summarize', 'polish', 'publish']) {
      out.push(await this.part(part, id));
    }
    return out;
  }

  @Step()
  async part(part: string, id: string): Promise<string> {
    this.calls.list.push(`${this.ctx.runId} ${part}`);
    return `${part}(${id}) with prompt ${Report.prompt}`;
  }
}

describe.each(ALL_BACKENDS)('operating runs on %s', (backend) => {
  let db: TestDatabase;
  let runtime: TestRuntime;
  let scope: DependencyContainer;
  let calls: Calls;
  let n = 0;
  const id = (): string => `${backend}-${++n}-${Date.now()}`;

  beforeAll(async () => {
    db = await createTestDatabase(backend);
  });
  afterAll(async () => {
    await db.drop();
  });
  beforeEach(async () => {
    scope = rootContainer.createChildContainer();
    calls = new Calls();
    scope.registerInstance(Calls, calls);
    runtime = await createTestRuntime({ database: db.url, container: scope });
  });
  afterEach(async () => {
    Report.prompt = 'v1';
    await runtime.close({ grace: 100 });
  });

  it('fork copies the history before fromSeq, runs the rest anew, and leaves the original intact', async () => {
    const r = id();
    const original = await scope.resolve(Report).write(r);
    const before = await runtime.history(`report-${r}`);
    Report.prompt = 'v2';
    const fork = await runtime.fork(`report-${r}`, { fromSeq: 3, newRunId: `report-${r}-fixed` });
    const forked = (await fork.result()) as string[];
    expect(forked.slice(0, 3)).toEqual(original.slice(0, 3));
    expect(forked.slice(3)).toEqual(
      original.slice(3).map((s) => s.replace('prompt v1', 'prompt v2')),
    );
    for (const part of ['gather', 'outline', 'draft'])
      expect(calls.count(`report-${r}-fixed`, part)).toBe(0);
    for (const part of ['summarize', 'polish', 'publish'])
      expect(calls.count(`report-${r}-fixed`, part)).toBe(1);
    expect(await runtime.history(`report-${r}`)).toEqual(before);
    expect((await fork.history()).map((s) => s.seq)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(await fork.describe()).toMatchObject({
      forkedFrom: `report-${r}`,
      forkedSeq: 3,
      status: 'completed',
    });
    await expect(
      runtime.fork(`report-${r}`, { fromSeq: 3, newRunId: `report-${r}-fixed` }),
    ).rejects.toThrow(/already exists/);
    await expect(runtime.fork(`report-${r}`, { fromSeq: -1 })).rejects.toThrow(/fromSeq must be/);
  });
});

// Two deployments of one workflow: v2 adds an audit step behind a patch.
let v2 = false;
const audits: string[] = [];

@injectable()
class Shipping {
  constructor(private readonly ctx: WorkflowContext) {}

  @Workflow({ name: 'shipping', id: (id: string) => `ship-${id}`, version: '1' })
  async ship(id: string): Promise<string> {
    const label = await this.label(id);
    if (v2 && this.ctx.patched('add-audit')) await this.audit(id);
    return this.dispatch(label);
  }

  @Step()
  async label(id: string): Promise<string> {
    return `label-${id}`;
  }

  @Step()
  async audit(id: string): Promise<void> {
    audits.push(id);
  }

  @Step()
  async dispatch(label: string): Promise<string> {
    return `dispatched ${label}`;
  }
}

describe('changing a workflow safely', () => {
  let runtime: TestRuntime;
  beforeEach(async () => {
    v2 = false;
    audits.length = 0;
    runtime = await createTestRuntime({
      container: rootContainer.createChildContainer(),
    });
  });
  afterEach(async () => {
    await runtime.close({ grace: 100 });
  });

  it('a run started on old code resumes on new code along the old path; a new run takes the new one', async () => {
    runtime.crash.afterCommit('Shipping.dispatch');
    await expect(rootContainer.resolve(Shipping).ship('old')).rejects.toThrow(SimulatedCrash);
    runtime = await runtime.restart();
    v2 = true;
    await expect(rootContainer.resolve(Shipping).ship('old')).resolves.toBe('dispatched label-old');
    expect(audits).toEqual([]);
    await expect(rootContainer.resolve(Shipping).ship('new')).resolves.toBe('dispatched label-new');
    expect(audits).toEqual(['new']);
    expect((await runtime.history('ship-new')).map((s) => s.name)).toEqual([
      'label',
      'patch:add-audit',
      'audit',
      'dispatch',
    ]);
    expect((await runtime.history('ship-old')).map((s) => s.name)).toEqual(['label', 'dispatch']);
    // Replays of the new run keep the patch decision.
    runtime = await runtime.restart(); // both runs had completed: nothing new to report
    await expect(rootContainer.resolve(Shipping).ship('new')).resolves.toBe('dispatched label-new');
    expect(audits).toEqual(['new']);
  });

  it('a worker limited to version 2 does not pick up version 1 runs', async () => {
    const queued = await runtime.start(Shipping, 'ship', ['queued-v1'], { queue: true });
    const worker = runtime.startWorker({ versions: ['2'], pollInterval: '10ms' });
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(await queued.status()).toBe('pending');
    await worker.stop();
    runtime.startWorker({ versions: ['1'], pollInterval: '10ms' });
    await expect(queued.result()).resolves.toBe('dispatched label-queued-v1');
  });
});

@injectable()
class Flaky {
  static failures = 1;

  @Workflow({ name: 'flaky-traced', id: (id: string) => `traced-${id}` })
  async go(id: string): Promise<string> {
    return this.fetch(id);
  }

  @Step()
  @Retry({ maxAttempts: 3, backoff: { fixed: 1 } })
  async fetch(id: string): Promise<string> {
    if (Flaky.failures-- > 0) throw Object.assign(new Error('unavailable'), { status: 503 });
    return `fetched ${id}`;
  }
}

describe('events and OpenTelemetry', () => {
  it('a run with one retried step exports a run span with one span per attempt, with attributes', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    const runtime = await createTestRuntime({ container: rootContainer.createChildContainer() });
    const tracing = traceRuns(runtime, { tracer: provider.getTracer('test') });
    try {
      Flaky.failures = 1;
      await expect(rootContainer.resolve(Flaky).go('a')).resolves.toBe('fetched a');
      const spans = exporter.getFinishedSpans();
      const run = spans.find((s) => s.name === 'waymark.run flaky-traced')!;
      const steps = spans.filter((s) => s.name === 'waymark.step fetch');
      expect(run.attributes).toMatchObject({
        'waymark.run_id': 'traced-a',
        'waymark.workflow': 'flaky-traced',
        'waymark.outcome': 'completed',
      });
      expect(
        steps.map((s) => [
          s.attributes['waymark.attempt'],
          s.attributes['waymark.outcome'],
          s.status.code,
        ]),
      ).toEqual([
        [1, 'retrying', 2],
        [2, 'completed', 1],
      ]);
      for (const step of steps) {
        expect(step.parentSpanContext?.spanId).toBe(run.spanContext().spanId);
        expect(step.spanContext().traceId).toBe(run.spanContext().traceId);
        expect(step.attributes).toMatchObject({ 'waymark.run_id': 'traced-a', 'waymark.seq': 0 });
      }
    } finally {
      tracing.dispose();
      await runtime.close();
    }
  });

  it('a resumed run is traced in the same trace as its first execution, linked to its root', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    let runtime = await createTestRuntime({
      container: rootContainer.createChildContainer(),
    });
    let tracing = traceRuns(runtime, { tracer: provider.getTracer('test') });
    Flaky.failures = 0;
    runtime.crash.afterCommit('Flaky.fetch');
    await expect(rootContainer.resolve(Flaky).go('b')).rejects.toThrow(SimulatedCrash);
    tracing.dispose();
    runtime = await runtime.restart();
    tracing = traceRuns(runtime, { tracer: provider.getTracer('test') });
    try {
      await rootContainer.resolve(Flaky).go('b');
      const runs = exporter.getFinishedSpans().filter((s) => s.name === 'waymark.run flaky-traced');
      expect(runs).toHaveLength(1);
      expect(runs[0].attributes['waymark.resumed']).toBe(true);
      expect(runs[0].links[0].context.traceId).toBe(runs[0].spanContext().traceId);
      // The first execution died mid-run: its spans were never ended, as in a killed process.
      expect(exporter.getFinishedSpans().filter((s) => s.name === 'waymark.step fetch')).toEqual(
        [],
      );
    } finally {
      tracing.dispose();
      await runtime.close();
    }
  });

  it('logEvents writes one structured line per event', async () => {
    const lines: Array<{ message: string; fields?: Record<string, unknown> }> = [];
    const logger: Logger = {
      debug: () => undefined,
      info: (message, fields) => lines.push({ message, fields }),
      warn: (message, fields) => lines.push({ message, fields }),
      error: () => undefined,
    };
    const runtime = await Waymark.create({
      database: 'sqlite::memory:',
      logger,
      logEvents: true,
      container: rootContainer.createChildContainer(),
    });
    try {
      Flaky.failures = 1;
      await rootContainer.resolve(Flaky).go('c');
      expect(lines.map((l) => l.message)).toEqual([
        'waymark run.started',
        'waymark step.started',
        'waymark step.attempt',
        'waymark step.retrying',
        'waymark step.attempt',
        'waymark step.completed',
        'waymark run.completed',
      ]);
      expect(lines[3].fields).toMatchObject({
        event: 'step.retrying',
        runId: 'traced-c',
        attempt: 1,
        error: { message: 'unavailable' },
      });
    } finally {
      await runtime.close();
    }
  });
});
