import { getEventListeners } from 'node:events';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { container as rootContainer, type DependencyContainer } from 'tsyringe';
import { StepTimeoutError } from 'waymark';
import { createTestRuntime, type TestRuntime } from 'waymark/testing';
import { LongWaits } from '../support/fixtures/LongWaits';
import { QueryCounter } from '../support/QueryCounter';

/** The runtime's stop signal, whose listeners a long wait must not pile up. */
function stopSignalOf(runtime: TestRuntime): AbortSignal {
  return (runtime as unknown as { parts: { lifecycle: { signal: AbortSignal } } }).parts.lifecycle
    .signal;
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
