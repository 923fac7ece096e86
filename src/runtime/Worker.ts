import { workflowNames } from '../decorators/WorkflowRegistry';
import { parseDuration, type Duration } from '../ground/Duration';
import type { RunRow } from '../store/rows';
import type { RuntimeKernel } from './RuntimeKernel';

/** Options of `runtime.startWorker()`. */
export interface WorkerOptions {
  /** Runs executed at once; default 10. */
  concurrency?: number;
  /** How often to look for work when there was none; default `'1s'`, with ±25% jitter. */
  pollInterval?: Duration;
  /** Only these workflow names; default every workflow loaded in this process. */
  workflows?: string[];
  /**
   * Only runs stored with these workflow versions (`@Workflow({ version })`), so old and new
   * deployments run side by side during a rollout, each resuming its own runs.
   */
  versions?: string[];
}

/**
 * Pulls runs from the database — pending, due (a timer, a backoff, a signal) or abandoned
 * (lease lapsed) — and executes up to `concurrency` at once. Many workers in many processes
 * share one database; a run is claimed by exactly one of them.
 *
 * @example
 * ```ts
 * const worker = runtime.startWorker({ concurrency: 20 });
 * // … on shutdown: await runtime.close({ grace: 10_000 }) stops it and hands runs over.
 * ```
 */
export class Worker {
  private readonly concurrency: number;
  private readonly pollMs: number;
  private readonly executing = new Set<string>();
  private stopped = false;
  private wakeLoop: (() => void) | undefined;
  private readonly loop: Promise<void>;

  constructor(
    private readonly kernel: RuntimeKernel,
    private readonly options: WorkerOptions = {},
  ) {
    this.concurrency = options.concurrency ?? 10;
    if (!Number.isInteger(this.concurrency) || this.concurrency < 1) {
      throw new RangeError(
        `startWorker(): concurrency must be a positive integer, got ${String(options.concurrency)}`,
      );
    }
    this.pollMs = parseDuration(options.pollInterval ?? '1s', 'startWorker(): pollInterval');
    this.loop = this.run();
  }

  /** Runs this worker is executing now. */
  get running(): number {
    return this.executing.size;
  }

  /** Stops claiming; runs already executing go on (`runtime.close()` hands them over). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wakeLoop?.();
    await this.loop;
  }

  private async run(): Promise<void> {
    const { lifecycle, logger } = this.kernel;
    while (!this.stopped && lifecycle.isOpen) {
      let claimed = 0;
      const free = this.concurrency - this.executing.size;
      if (free > 0) {
        try {
          const rows = await this.claim(free);
          for (const row of rows) this.execute(row);
          claimed = rows.length;
        } catch (error) {
          if (!lifecycle.isOpen) break;
          logger.warn('worker could not claim runs; retrying', { error });
        }
      }
      // A full batch means there may be more: look again at once.
      if (claimed > 0 && claimed === free) continue;
      await this.pause();
    }
  }

  private claim(limit: number): Promise<RunRow[]> {
    const { queue, workerId, clock, leaseMs } = this.kernel;
    const now = clock.now();
    return queue.claim({
      owner: workerId,
      limit,
      now,
      leaseUntil: now + leaseMs,
      workflows: this.options.workflows ?? workflowNames(),
      versions: this.options.versions,
    });
  }

  private execute(row: RunRow): void {
    this.executing.add(row.id);
    const done = (): void => {
      this.executing.delete(row.id);
      this.wakeLoop?.();
    };
    this.kernel.launcher.adoptClaimedRow(row).then(done, (error: unknown) => {
      this.kernel.logger.warn(`run "${row.id}" stopped in this worker; it stays resumable`, {
        error,
      });
      done();
    });
  }

  /** Waits a jittered poll interval, or less if a run finishes (room for more work). */
  private pause(): Promise<void> {
    return new Promise((resolve) => {
      const jittered = this.pollMs * (0.75 + Math.random() / 2);
      const timer = setTimeout(finish, jittered);
      function finish(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wakeLoop = finish;
    });
  }
}
