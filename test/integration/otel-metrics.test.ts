import { MeterProvider, MetricReader, type ResourceMetrics } from '@opentelemetry/sdk-metrics';
import { container as rootContainer, injectable } from 'tsyringe';
import { Retry, Step, Workflow, Waymark, type WaymarkRuntime } from 'waymark';
import { meterRuns } from 'waymark/otel';
import { createTestRuntime, SimulatedCrash, type TestRuntime } from 'waymark/testing';
import { Narrator, NarratorScript } from '../support/fixtures/Narrator';

/** A reader collected on demand, as a pull exporter (Prometheus) collects. */
class OnDemandReader extends MetricReader {
  protected onForceFlush(): Promise<void> {
    return Promise.resolve();
  }
  protected onShutdown(): Promise<void> {
    return Promise.resolve();
  }
}

@injectable()
class Billing {
  static failures = 0;

  @Workflow({ name: 'billing', id: (id: string) => `billing-${id}` })
  async bill(id: string): Promise<string> {
    return this.charge(id);
  }

  @Step()
  @Retry({ maxAttempts: 3, backoff: { fixed: 1 } })
  async charge(id: string): Promise<string> {
    if (Billing.failures-- > 0) throw Object.assign(new Error('unavailable'), { status: 503 });
    if (id === 'declined') throw new Error('card declined');
    return `charged ${id}`;
  }
}

type Point = { attributes: Record<string, unknown>; value: unknown };

/** Every metric's points, by instrument name. */
function byName(collected: ResourceMetrics): Map<string, { unit: string; points: Point[] }> {
  const out = new Map<string, { unit: string; points: Point[] }>();
  for (const scope of collected.scopeMetrics) {
    for (const metric of scope.metrics) {
      const points = metric.dataPoints.map((p) => ({ attributes: p.attributes, value: p.value }));
      out.set(metric.descriptor.name, { unit: metric.descriptor.unit, points });
    }
  }
  return out;
}

describe('meterRuns', () => {
  let runtime: WaymarkRuntime;
  let reader: OnDemandReader;
  let provider: MeterProvider;

  beforeEach(async () => {
    reader = new OnDemandReader();
    provider = new MeterProvider({ readers: [reader] });
    runtime = await Waymark.create({
      database: 'sqlite::memory:',
      container: rootContainer.createChildContainer(),
    });
  });
  afterEach(async () => {
    await runtime.close();
    await provider.shutdown();
  });

  it('reports runs by workflow, step duration, attempts and retries, and queue depth', async () => {
    const metering = meterRuns(runtime, { meter: provider.getMeter('test') });
    try {
      Billing.failures = 1;
      await rootContainer.resolve(Billing).bill('a');
      await expect(rootContainer.resolve(Billing).bill('declined')).rejects.toThrow(
        'card declined',
      );
      runtime.queue('invoices');
      await runtime.start(Billing, 'bill', ['queued'], { queue: 'invoices' });

      const { resourceMetrics, errors } = await reader.collect();
      expect(errors).toEqual([]);
      const metrics = byName(resourceMetrics);
      const billing = { 'waymark.workflow': 'billing' };
      expect(metrics.get('waymark.runs.started')).toEqual({
        unit: '{run}',
        points: [{ attributes: billing, value: 2 }],
      });
      expect(metrics.get('waymark.runs.completed')?.points).toEqual([
        { attributes: billing, value: 1 },
      ]);
      expect(metrics.get('waymark.runs.failed')?.points).toEqual([
        { attributes: billing, value: 1 },
      ]);
      const charge = { 'waymark.step': 'charge' };
      expect(metrics.get('waymark.step.attempts')?.points).toEqual([
        { attributes: charge, value: 3 },
      ]);
      expect(metrics.get('waymark.step.retries')?.points).toEqual([
        { attributes: charge, value: 1 },
      ]);
      const duration = metrics.get('waymark.step.duration')!;
      expect(duration.unit).toBe('s');
      expect(
        duration.points.map((p) => [p.attributes, (p.value as { count: number }).count]),
      ).toEqual([
        [{ ...charge, 'waymark.outcome': 'completed' }, 1],
        [{ ...charge, 'waymark.outcome': 'failed' }, 1],
      ]);
      expect(metrics.get('waymark.queue.depth')?.points).toEqual([
        { attributes: { 'waymark.queue': 'invoices' }, value: 1 },
      ]);
      expect(metrics.get('waymark.queue.running')?.points).toEqual([
        { attributes: { 'waymark.queue': 'invoices' }, value: 0 },
      ]);
    } finally {
      metering.dispose();
    }
  });

  it('reports how late stream readers here saw each batch written after they came', async () => {
    const metering = meterRuns(runtime, { meter: provider.getMeter('test'), queueGauges: false });
    try {
      rootContainer.registerInstance(NarratorScript, new NarratorScript());
      const handle = await runtime.start(Narrator, 'narrate', ['lag', 3], { queue: true });
      const read = (async () => {
        const entries: unknown[] = [];
        for await (const entry of runtime.readStream(handle.runId, 'tokens')) entries.push(entry);
        return entries;
      })();
      const worker = runtime.startWorker({ pollInterval: '10ms' });
      await expect(handle.result()).resolves.toBe(3);
      await expect(read).resolves.toHaveLength(3);
      await worker.stop();
      const metrics = byName((await reader.collect()).resourceMetrics);
      const lag = metrics.get('waymark.stream.lag')!;
      expect(lag.unit).toBe('s');
      expect(lag.points).toEqual([
        {
          attributes: { 'waymark.stream': 'tokens' },
          value: expect.objectContaining({ count: expect.any(Number) }),
        },
      ]);
      expect((lag.points[0].value as { count: number }).count).toBeGreaterThanOrEqual(1);
    } finally {
      metering.dispose();
    }
  });

  it('records nothing after it is disposed, and reads no queue without queueGauges', async () => {
    meterRuns(runtime, { meter: provider.getMeter('test'), queueGauges: false }).dispose();
    await rootContainer.resolve(Billing).bill('b');
    const metrics = byName((await reader.collect()).resourceMetrics);
    expect(metrics.get('waymark.runs.started')?.points ?? []).toEqual([]);
    expect(metrics.has('waymark.queue.depth')).toBe(false);
  });
});

describe('meterRuns: claims', () => {
  let runtime: TestRuntime;
  let reader: OnDemandReader;
  let provider: MeterProvider;

  beforeEach(async () => {
    reader = new OnDemandReader();
    provider = new MeterProvider({ readers: [reader] });
    runtime = await createTestRuntime({
      clock: 'fake',
      container: rootContainer.createChildContainer(),
    });
  });
  afterEach(async () => {
    await runtime.close();
    await provider.shutdown();
  });

  const points = async (name: string): Promise<Point[]> =>
    byName((await reader.collect()).resourceMetrics).get(name)?.points ?? [];

  it('reports how long a queued run waited for a worker, and a run taken over from a dead process', async () => {
    meterRuns(runtime, { meter: provider.getMeter('test'), queueGauges: false });
    const queued = await runtime.start(Billing, 'bill', ['queued'], { queue: true });
    const delayed = await runtime.start(Billing, 'bill', ['delayed'], { at: '1s' });
    await runtime.clock.advance(4_000);
    const worker = runtime.startWorker({ pollInterval: '10ms' });
    await expect(queued.result()).resolves.toBe('charged queued');
    await expect(delayed.result()).resolves.toBe('charged delayed');
    await worker.stop();
    const waits = await points('waymark.queue.wait');
    const billing = { 'waymark.workflow': 'billing', 'waymark.queue': '' };
    expect(waits).toEqual([
      {
        attributes: { ...billing, 'waymark.claimed_from': 'pending' },
        value: expect.objectContaining({ count: 1, sum: 4 }),
      },
      {
        attributes: { ...billing, 'waymark.claimed_from': 'waiting' },
        value: expect.objectContaining({ count: 1, sum: 3 }),
      },
    ]);
    expect(await points('waymark.lease.takeovers')).toEqual([]);

    runtime.crash.before('Billing.charge');
    await expect(runtime.run(Billing, 'bill', ['crashed'])).rejects.toThrow(SimulatedCrash);
    runtime = await runtime.restart();
    meterRuns(runtime, { meter: provider.getMeter('test'), queueGauges: false });
    const again = runtime.startWorker({ pollInterval: '10ms' });
    await expect(runtime.handle('billing-crashed').result()).resolves.toBe('charged crashed');
    await again.stop();
    expect(await points('waymark.lease.takeovers')).toEqual([
      { attributes: { 'waymark.workflow': 'billing', 'waymark.queue': '' }, value: 1 },
    ]);
  });
});
