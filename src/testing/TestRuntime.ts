import { SimulatedCrash } from '../errors/SimulatedCrash';
import type { Lifecycle } from '../ground/Lifecycle';
import type { RuntimeServices } from '../runtime/RuntimeServices';
import { WaymarkRuntime } from '../runtime/WaymarkRuntime';
import type { DataSource } from 'typeorm';
import type { Clock } from '../ground/Clock';
import type { CrashPlan } from './CrashPlan';
import { FakeClock } from './FakeClock';
import type { ExecutionLog } from './ExecutionLog';

/** What a test runtime shares with the runtimes its restarts create. */
export interface TestFamily {
  readonly clock: Clock | undefined;
  readonly crash: CrashPlan;
  readonly executions: ExecutionLog;
  /** An in-memory database outlives its runtimes: it is the "disk" a restart finds. */
  readonly sharedDataSource: DataSource | undefined;
  latest: TestRuntime | undefined;
  restart(previous: TestRuntime): Promise<TestRuntime>;
}

/**
 * A runtime for tests: crash hooks, execution counts, and `restart()` to continue on the
 * same database as a new process would.
 */
export class TestRuntime extends WaymarkRuntime {
  private readonly releaseConnection: () => Promise<void>;

  /** @internal Use `createTestRuntime()`. */
  constructor(
    services: RuntimeServices,
    private readonly family: TestFamily,
    private readonly lifecycle: Lifecycle,
  ) {
    super(services);
    this.releaseConnection = () => services.shutdown.releaseConnection();
  }

  /**
   * The fake clock, with `createTestRuntime({ clock: 'fake' })`: `advance('7d')` fires
   * every timer, backoff and timeout due by then.
   */
  get clock(): FakeClock {
    if (!(this.family.clock instanceof FakeClock)) {
      throw new TypeError(
        "this test runtime has no fake clock: createTestRuntime({ clock: 'fake' })",
      );
    }
    return this.family.clock;
  }

  /** Crash rules; shared with restarted runtimes. */
  get crash(): CrashPlan {
    return this.family.crash;
  }

  /** Step executions so far, across restarts. */
  get executions(): ExecutionLog {
    return this.family.executions;
  }

  /** Whether a crash (or `kill()`) ended this runtime. */
  get isDead(): boolean {
    return this.lifecycle.isDead;
  }

  /** Kills this runtime now, like SIGKILL: nothing more is written, calls in flight reject. */
  kill(reason = 'killed by the test'): void {
    this.lifecycle.kill(new SimulatedCrash(reason));
  }

  /**
   * Kills this runtime if it still lives and returns a new one on the same database, as a
   * restarted process would see it. Resume runs by calling the workflow again or `recover()`.
   */
  async restart(): Promise<TestRuntime> {
    if (!this.isDead) this.kill('killed by restart()');
    await this.release();
    return this.family.restart(this);
  }

  override async close(options?: { grace?: number }): Promise<void> {
    if (this.isDead) return this.release();
    await super.close(options);
    if (this.family.latest === this && this.family.sharedDataSource?.isInitialized) {
      await this.family.sharedDataSource.destroy();
    }
  }

  /** A dead runtime frees its connections, as the OS would for a dead process. */
  private release(): Promise<void> {
    return this.releaseConnection();
  }
}
