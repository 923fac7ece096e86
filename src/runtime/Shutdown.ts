import type { Clock } from '../ground/Clock';
import { realClock } from '../ground/Clock';
import type { Lifecycle } from '../ground/Lifecycle';
import type { Logger } from '../ground/Logger';
import type { RunClaims } from '../store/RunClaims';
import type { Executions } from './execution/Executions';
import { RuntimeRegistry, type WorkflowEntry } from './RuntimeRegistry';
import type { Worker } from './Worker';

/** What closing a runtime uses. */
export interface ShutdownDeps {
  readonly lifecycle: Lifecycle;
  readonly executions: Executions;
  readonly queue: RunClaims;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Releases what the runtime opened (its DataSource, if waymark created it). */
  readonly release: () => Promise<void>;
  /** How workflows called outside any run reach this runtime (until it closes). */
  readonly entry: WorkflowEntry;
}

/**
 * How a runtime closes (a deploy's SIGTERM): stop claiming, let runs executing here go on
 * for a grace period, hand the ones still executing back to the queue so another process
 * continues them at once, then release the connection.
 */
export class Shutdown {
  private readonly workers = new Set<Worker>();
  private closing: Promise<void> | undefined;

  constructor(private readonly deps: ShutdownDeps) {}

  addWorker(worker: Worker): void {
    this.workers.add(worker);
  }

  /** Closes the runtime once, however often it is asked. */
  close(graceMs: number): Promise<void> {
    this.closing ??= this.run(graceMs);
    return this.closing;
  }

  /** Frees the connection now, as the OS does for a dead process (the testing kit's kill). */
  releaseConnection(): Promise<void> {
    return this.deps.release();
  }

  private async run(graceMs: number): Promise<void> {
    const { lifecycle } = this.deps;
    RuntimeRegistry.deactivate(this.deps.entry);
    lifecycle.beginClosing();
    await Promise.all([...this.workers].map((worker) => worker.stop()));
    await this.drain(graceMs);
    await this.handOverRemaining();
    lifecycle.markClosed();
    await this.deps.release();
  }

  /** Waits until every run executing here has settled, or `graceMs` has passed. */
  private async drain(graceMs: number): Promise<void> {
    const pending = this.deps.executions.pending().map((outcome) => outcome.catch(() => undefined));
    if (pending.length === 0) return;
    const grace = new AbortController();
    await Promise.race([
      Promise.all(pending),
      realClock.sleep(graceMs, grace.signal).catch(() => undefined),
    ]);
    grace.abort();
  }

  /**
   * Runs still held here after the grace period go back to the queue now: those executing,
   * and those claimed but still loading their history (an operator action's, a worker's).
   * A claim left behind would hold its run until the lease lapses, since other processes
   * see this one alive.
   */
  private async handOverRemaining(): Promise<void> {
    const { executions, queue, clock, logger } = this.deps;
    for (const { runId, epoch } of executions.claims()) {
      await queue.release(runId, epoch, clock.now()).catch((error: unknown) => {
        logger.warn(
          `could not hand run "${runId}" over; another process takes it when its lease lapses`,
          { error },
        );
      });
    }
  }
}
