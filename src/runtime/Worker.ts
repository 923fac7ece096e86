import { workflowNames } from '../decorators/WorkflowRegistry';
import { realClock, sleepUnless, type Clock } from '../ground/Clock';
import { parseDuration, type Duration } from '../ground/Duration';
import type { Lifecycle } from '../ground/Lifecycle';
import type { Logger } from '../ground/Logger';
import type { LeaseHolder } from '../ground/ProcessIdentity';
import type { ClaimToken, Leases } from '../store/Leases';
import type { RunRow } from '../store/rows';
import type { ResolvedQueue } from '../policies/FlowLimits';
import type { NamedQueueClaims } from '../store/NamedQueueClaims';
import type { RunClaims } from '../store/RunClaims';
import type { FlowRegistry } from './execution/FlowRegistry';
import { newClaimToken } from './execution/RunAcquirer';
import type { RunOutcome } from './execution/RunOutcome';

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

/** The worker `runtime.startWorker()` started. */
export interface WorkerHandle {
  /** Runs this worker is executing now. */
  readonly running: number;
  /** Stops claiming; runs already executing go on (`runtime.close()` hands them over). */
  stop(): Promise<void>;
}

/** What a worker uses. */
export interface WorkerDeps {
  readonly queue: RunClaims;
  readonly leases: Leases;
  readonly self: LeaseHolder;
  readonly clock: Clock;
  readonly leaseMs: number;
  readonly lifecycle: Lifecycle;
  readonly logger: Logger;
  /** Whether a run executes in this runtime now (its own late lease is not an abandoned run). */
  readonly executingHere: (runId: string) => boolean;
  /** Executes, here, a run this worker claimed (`row` as claimed); settles when it stops here. */
  readonly execute: (row: RunRow, claim: ClaimToken) => Promise<RunOutcome>;
  /** The named queues declared in this runtime, and where their claims go. */
  readonly flows: FlowRegistry;
  readonly queues: NamedQueueClaims;
  /** Time's work for these workflows: schedule ticks that came, runs past their deadline. */
  readonly tend: (workflows: string[]) => Promise<void>;
}

/**
 * Pulls runs from the database — pending, due (a timer, a backoff, a signal) or abandoned
 * (lease lapsed, or held by a process on this host that no longer exists) — and executes up
 * to `concurrency` at once. Many workers in many processes share one database; a run is
 * claimed by exactly one of them.
 *
 * @example
 * ```ts
 * const worker = runtime.startWorker({ concurrency: 20 });
 * // … on shutdown: await runtime.close({ grace: 10_000 }) stops it and hands runs over.
 * ```
 */
export class Worker implements WorkerHandle {
  private readonly concurrency: number;
  private readonly pollMs: number;
  private readonly executing = new Set<string>();
  /** Runs executing here per named queue (for each queue's `workerConcurrency`). */
  private readonly byQueue = new Map<string, number>();
  private readonly stopping = new AbortController();
  private wakeLoop: (() => void) | undefined;
  private nextHostScanAt = 0;
  private nextTendAt = 0;
  private readonly loop: Promise<void>;

  constructor(
    private readonly deps: WorkerDeps,
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
    this.stopping.abort();
    this.wakeLoop?.();
    await this.loop;
  }

  private async run(): Promise<void> {
    const { lifecycle, logger } = this.deps;
    for (const named of this.deps.flows.allQueues()) {
      await this.deps.queues.record(named, this.deps.clock.now()).catch((error: unknown) => {
        logger.warn(`worker could not record queue "${named.name}"`, { error });
      });
    }
    while (!this.stopping.signal.aborted && lifecycle.isOpen) {
      let claimed = 0;
      const free = this.concurrency - this.executing.size;
      await this.tend();
      if (free > 0) {
        try {
          claimed = await this.claimAndExecute(free);
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

  /** Once per poll interval: schedules and deadlines (their runs are then claimed as any). */
  private async tend(): Promise<void> {
    // Real time, not the runtime's clock: a fake clock that stands still must not stop it.
    const now = performance.now();
    if (now < this.nextTendAt) return;
    this.nextTendAt = now + this.pollMs * 0.75;
    await this.deps.tend(this.options.workflows ?? workflowNames()).catch((error: unknown) => {
      if (this.deps.lifecycle.isOpen)
        this.deps.logger.warn('worker could not tend schedules', { error });
    });
  }

  private async claimAndExecute(free: number): Promise<number> {
    const { queue, self, clock, leaseMs } = this.deps;
    const now = clock.now();
    const token = newClaimToken();
    const rows = await queue.claim({
      holder: self,
      token,
      limit: free,
      now,
      leaseMs,
      workflows: this.options.workflows ?? workflowNames(),
      versions: this.options.versions,
    });
    for (const row of rows) this.execute(row, { runId: row.id, epoch: row.epoch, token });
    let taken = rows.length;
    for (const named of this.deps.flows.allQueues()) {
      if (taken >= free) break;
      taken += await this.claimFromQueue(named, free - taken);
    }
    if (taken < free && now >= this.nextHostScanAt) {
      this.nextHostScanAt = now + Math.max(this.pollMs, Math.floor(leaseMs / 3));
      return taken + (await this.takeOverAbandoned(free - taken));
    }
    return taken;
  }

  /** Claims from a named queue, within its limits (checked in the database) and this worker's. */
  private async claimFromQueue(named: ResolvedQueue, room: number): Promise<number> {
    const { queues, self, clock, leaseMs } = this.deps;
    const here = this.byQueue.get(named.name) ?? 0;
    const limit = Math.min(room, (named.workerConcurrency ?? room) - here);
    if (limit < 1) return 0;
    const now = clock.now();
    const token = newClaimToken();
    const rows = await queues.claim({
      queue: named,
      holder: self,
      token,
      limit,
      now,
      leaseMs,
      workflows: this.options.workflows ?? workflowNames(),
      versions: this.options.versions,
    });
    for (const row of rows) this.execute(row, { runId: row.id, epoch: row.epoch, token });
    return rows.length;
  }

  /**
   * Runs held on this host by a process that no longer exists: taken over now, not at expiry;
   * and runs of this process's own whose lease lapsed while no execution here held them (a
   * claim whose answer was lost with its connection), which other workers' claims leave alone.
   */
  private async takeOverAbandoned(limit: number): Promise<number> {
    const { leases, self, clock, leaseMs } = this.deps;
    const names = new Set(this.options.workflows ?? workflowNames());
    const versions = this.options.versions;
    let taken = 0;
    for (const row of await leases.findLapsedHere(self, limit)) {
      if (!names.has(row.workflow) || (versions && !versions.includes(row.version ?? ''))) continue;
      if (this.deps.executingHere(row.id)) continue;
      const now = clock.now();
      const claim = await leases.claim(row, self, newClaimToken(), leaseMs, now);
      if (!claim) continue;
      this.execute({ ...row, epoch: claim.epoch, claimToken: claim.token }, claim);
      taken++;
    }
    return taken;
  }

  private execute(row: RunRow, claim: ClaimToken): void {
    this.executing.add(row.id);
    const queue = row.queueName ?? undefined;
    if (queue !== undefined) this.byQueue.set(queue, (this.byQueue.get(queue) ?? 0) + 1);
    const done = (): void => {
      this.executing.delete(row.id);
      if (queue !== undefined) this.byQueue.set(queue, (this.byQueue.get(queue) ?? 1) - 1);
      this.wakeLoop?.();
    };
    this.deps.execute(row, claim).then(
      (outcome) => {
        // Cancelled by an operator: nothing for anyone to act on, so not a warning.
        if (outcome.status === 'cancelled') {
          this.deps.logger.info(`run "${row.id}" was cancelled; this worker stopped it`, {
            error: outcome.error,
          });
        }
        done();
      },
      (error: unknown) => {
        this.deps.logger.warn(`run "${row.id}" stopped in this worker; it stays resumable`, {
          error,
        });
        done();
      },
    );
  }

  /** Waits a jittered poll interval, or less if a run finishes (room for more work). */
  private async pause(): Promise<void> {
    const woken = new AbortController();
    this.wakeLoop = () => woken.abort();
    const jittered = this.pollMs * (0.75 + Math.random() / 2);
    await sleepUnless(realClock, jittered, woken.signal, this.stopping.signal).catch(
      () => undefined,
    );
  }
}
