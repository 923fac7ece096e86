import { getEventListeners } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { container as rootContainer, type DependencyContainer } from 'tsyringe';
import { StepTimeoutError, Waymark } from 'waymark';
import { createTestRuntime, type TestRuntime } from 'waymark/testing';
import { LongWaits } from '../support/fixtures/LongWaits';
import { SlowPipeline } from '../support/fixtures/SlowPipeline';
import { QueryCounter } from '../support/QueryCounter';

/** The runtime's stop signal, whose listeners a long wait must not pile up. */
function stopSignalOf(runtime: TestRuntime): AbortSignal {
  // The test runtime keeps the lifecycle its kit made (a private field).
  return (runtime as unknown as { lifecycle: { signal: AbortSignal } }).lifecycle.signal;
}

setFlagsFromString('--expose_gc');
const gc = runInNewContext('gc') as () => void;
const heapAfterGc = (): number => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('waits of days and weeks', () => {
  let runtime: TestRuntime;
  let scope: DependencyContainer;
  let n = 0;
  const key = (): string => `k${++n}-${Date.now()}`;

  beforeEach(() => {
    scope = rootContainer.createChildContainer();
    LongWaits.attempts = 0;
  });
  afterEach(async () => {
    await runtime.close({ grace: 0 });
  });

  it('a caller awaiting a 7-day approval keeps its listeners, timers and heap flat for the whole wait', async () => {
    runtime = await createTestRuntime({ clock: 'fake', container: scope });
    const handle = await runtime.start(LongWaits, 'approval', [key(), '7d']);
    const result = handle.result();
    const stop = stopSignalOf(runtime);
    const sample = () => ({
      listeners: getEventListeners(stop, 'abort').length,
      timers: runtime.clock.pendingTimers,
    });
    // An hour at a time for seven days; a signal for another name wakes the wait each hour.
    const hour = async (): Promise<void> => {
      await runtime.signal(handle.runId, 'unrelated', null);
      await runtime.clock.advance('1h');
    };
    for (let i = 0; i < 24; i++) await hour();
    const early = sample();
    const heapEarly = heapAfterGc();
    for (let i = 24; i < 24 * 7 - 1; i++) await hour();
    const late = sample();
    const heapLate = heapAfterGc();
    expect(late.listeners).toBeLessThanOrEqual(early.listeners);
    expect(late.listeners).toBeLessThanOrEqual(2);
    expect(late.timers).toBeLessThanOrEqual(early.timers);
    expect(heapLate - heapEarly).toBeLessThan(4 * 1024 * 1024);
    await runtime.signal(handle.runId, 'approval', 'yes');
    await expect(result).resolves.toMatch(/: yes$/);
  }, 60_000);

  describe('many callers awaiting at once', () => {
    const CALLERS = 25;
    let stderr: jest.SpiedFunction<typeof process.stderr.write>;
    let dir: string;

    // Node warns of a "possible memory leak" on stderr past 10 listeners on one signal: a
    // user awaiting 25 runs would read that as waymark leaking. (Jest's `process` does not
    // get the real process's 'warning' events; its stderr is the real one.)
    beforeEach(() => {
      stderr = jest.spyOn(process.stderr, 'write');
      dir = mkdtempSync(join(tmpdir(), 'waymark-callers-'));
    });
    afterEach(() => {
      stderr.mockRestore();
      rmSync(dir, { recursive: true, force: true });
    });

    const leakWarnings = () =>
      stderr.mock.calls.map(([chunk]) => String(chunk)).filter((t) => t.includes('MaxListeners'));

    it(`${CALLERS} callers awaiting waiting runs get no leak warning, and their listeners go when the waits end`, async () => {
      runtime = await createTestRuntime({ container: scope });
      const handles = await Promise.all(
        Array.from({ length: CALLERS }, () => runtime.start(LongWaits, 'approval', [key(), '7d'])),
      );
      const results = handles.map((handle) => handle.result());
      await settle(300);
      const stop = stopSignalOf(runtime);
      expect(getEventListeners(stop, 'abort').length).toBeGreaterThanOrEqual(CALLERS);
      for (const handle of handles) await runtime.signal(handle.runId, 'approval', 'yes');
      await expect(Promise.all(results)).resolves.toHaveLength(CALLERS);
      await settle(0);
      expect(leakWarnings()).toEqual([]);
      expect(getEventListeners(stop, 'abort').length).toBeLessThanOrEqual(2);
    });

    it(`${CALLERS} callers awaiting runs that another runtime executes get no leak warning`, async () => {
      const database = `sqlite:${join(dir, 'shared.db')}`;
      runtime = await createTestRuntime({ container: scope, database });
      // Twenty 25 ms steps a run: the other runtime watches them run for half a second.
      const held = await Promise.all(
        Array.from({ length: CALLERS }, () => runtime.start(SlowPipeline, 'run', [key(), 20])),
      );
      const watcher = await Waymark.create({ database, container: scope });
      try {
        const results = held.map((h) => watcher.handle(h.runId).result());
        await settle(100);
        expect(await watcher.handle(held[0].runId).status()).toBe('running');
        await expect(Promise.all(results)).resolves.toEqual(held.map(() => 190));
        await settle(0);
        expect(leakWarnings()).toEqual([]);
      } finally {
        await watcher.close({ grace: 0 });
      }
    });
  });

  it('a step with a 25-day timeout is not timed out at once', async () => {
    runtime = await createTestRuntime({ container: scope });
    await expect(runtime.run(LongWaits, 'quickStepWithLongTimeout', [key()])).resolves.toMatch(
      /^done /,
    );
  });

  it('a step with a 25-day timeout does time out after 25 days', async () => {
    runtime = await createTestRuntime({ clock: 'fake', container: scope });
    const run = runtime.run(LongWaits, 'hang', [key()]).then(
      () => 'ended',
      (error: unknown) => error,
    );
    await runtime.clock.untilSleeping(); // the step's timeout is armed
    await runtime.clock.advance('24d');
    await expect(Promise.race([run, settle(50).then(() => 'still running')])).resolves.toBe(
      'still running',
    );
    await runtime.clock.advance('1d');
    expect(await run).toBeInstanceOf(StepTimeoutError);
  });

  it.each([
    ['sleep(25d)', 'sleepFor' as const, [] as string[]],
    ["waitForSignal(…, { timeout: '30d' })", 'approval' as const, ['30d']],
    ['a 25-day backoff', 'flaky' as const, [] as string[]],
  ])(
    'a caller awaiting a run in %s waits quietly, without spinning',
    async (_what, method, extra) => {
      const counter = new QueryCounter();
      const database = { type: 'better-sqlite3' as const, database: ':memory:' };
      runtime = await createTestRuntime({
        database: { ...database, logging: ['query'], logger: counter },
        container: scope,
      });
      const handle = await runtime.start(LongWaits, method, [key(), ...extra] as never);
      const result = handle.result().catch((error: unknown) => error);
      await settle(200);
      counter.reset();
      await settle(1500);
      // A quiet wait looks at the store about once a second; a timer past Node's limit fires
      // at once, and the wait would look hundreds of times.
      expect(counter.reads.length).toBeLessThanOrEqual(6);
      expect(await handle.status()).toBe('waiting');
      await runtime.cancel(handle.runId, 'the test is over');
      await result;
    },
  );

  it('a 25-day backoff held in the process (threshold above it) waits instead of retrying at once', async () => {
    runtime = await createTestRuntime({ container: scope, durableDelayThreshold: '60d' });
    const handle = await runtime.start(LongWaits, 'flaky', [key()]);
    const result = handle.result().catch((error: unknown) => error);
    await settle(1500);
    expect(LongWaits.attempts).toBe(1);
    expect(await handle.status()).toBe('running');
    await runtime.cancel(handle.runId, 'the test is over');
    await result;
  });
});
