import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { createRuntime } from '../runtime/Waymark';
import { Lifecycle } from '../ground/Lifecycle';
import type { RuntimeOptions } from '../runtime/RuntimeOptions';
import type { StepHooks } from '../model/StepHooks';
import { dataSourceOptionsFromUrl } from '../runtime/DatabaseAccess';
import type { Clock } from '../ground/Clock';
import { CrashPlan } from './CrashPlan';
import { FakeClock } from './FakeClock';
import { ExecutionLog } from './ExecutionLog';
import { isMemoryDatabase } from './isMemoryDatabase';
import { TestRuntime, type TestFamily } from './TestRuntime';

/** Options of {@link createTestRuntime}: runtime options with an in-memory default. */
export interface TestRuntimeOptions extends Omit<RuntimeOptions, 'database' | 'hooks' | 'clock'> {
  /** Default `'sqlite::memory:'`: a fresh database per test runtime family. */
  database?: RuntimeOptions['database'];
  /**
   * `'real'` (default), `'fake'` for a {@link FakeClock} that moves only on `advance()`, or
   * any `Clock`. Restarted runtimes share it.
   */
  clock?: 'real' | 'fake' | Clock;
  /**
   * Default `false`, unlike `Waymark.create()`: a test that crashes runs on purpose is not
   * told about them. `true` for a test whose point is that notice.
   */
  reportAbandonedRuns?: boolean;
}

/**
 * A runtime for jest tests, on in-memory SQLite unless told otherwise, with crash hooks,
 * execution counts and `restart()`.
 *
 * @example
 * ```ts
 * const runtime = await createTestRuntime();
 * runtime.crash.afterEffect('ResearchAgent.search');
 * await expect(agent.research('q')).rejects.toThrow(SimulatedCrash);
 * const restarted = await runtime.restart();
 * await expect(agent.research('q')).resolves.toEqual(expected);
 * expect(restarted).toHaveExecutedStepTimes('ResearchAgent.search', 2);
 * await restarted.close();
 * ```
 */
export async function createTestRuntime(options: TestRuntimeOptions = {}): Promise<TestRuntime> {
  const database = options.database ?? 'sqlite::memory:';
  const sharedDataSource = isMemoryDatabase(database) ? await openShared(database) : undefined;
  const clock =
    options.clock === 'fake'
      ? new FakeClock()
      : options.clock === 'real'
        ? undefined
        : options.clock;
  // One identity across restarts, as a restarted process under the same name: its runs
  // are taken over at once rather than after their leases lapse.
  const workerId = options.workerId ?? `test-runtime-${randomBytes(4).toString('hex')}`;
  const reportAbandonedRuns = options.reportAbandonedRuns ?? false;
  const launched = { ...options, workerId, clock, reportAbandonedRuns };
  const family: TestFamily = {
    clock,
    crash: new CrashPlan(),
    executions: new ExecutionLog(),
    sharedDataSource,
    latest: undefined,
    restart: () => launch(family, { ...launched, database: sharedDataSource ?? database }),
  };
  return launch(family, { ...launched, database: sharedDataSource ?? database });
}

async function launch(family: TestFamily, options: RuntimeOptions): Promise<TestRuntime> {
  const lifecycle = new Lifecycle();
  const crashAt =
    (point: 'before' | 'afterEffect' | 'afterCommit'): StepHooks['beforeStep'] =>
    (at) => {
      // A dead runtime's siblings (Promise.all) must not use up rules meant for a live one.
      if (lifecycle.isDead) return;
      const crash = family.crash.take(point, at);
      if (!crash) return;
      lifecycle.kill(crash);
      throw crash;
    };
  const hooks: StepHooks = {
    beforeStep: crashAt('before'),
    onExecute: (at) => family.executions.record(at),
    afterEffect: crashAt('afterEffect'),
    afterCommit: crashAt('afterCommit'),
  };
  const runtime = await createRuntime(
    { ...options, hooks },
    lifecycle,
    (services) => new TestRuntime(services, family, lifecycle),
  );
  family.latest = runtime;
  return runtime;
}

async function openShared(database: RuntimeOptions['database']): Promise<DataSource> {
  const options = typeof database === 'string' ? dataSourceOptionsFromUrl(database) : database;
  const dataSource = new DataSource(options as ConstructorParameters<typeof DataSource>[0]);
  await dataSource.initialize();
  return dataSource;
}
