import { workflowNames } from '../decorators/WorkflowRegistry';
import { realClock, sleepUnless, type Clock } from '../ground/Clock';
import { parseDuration, type Duration } from '../ground/Duration';
import type { Lifecycle } from '../ground/Lifecycle';
import type { Logger } from '../ground/Logger';
import type { LeaseHolder } from '../ground/ProcessIdentity';
import type { Leases } from '../store/Leases';
import type { ResolvedQueue } from '../policies/FlowLimits';
import type { NamedQueueClaims } from '../store/NamedQueueClaims';
import type { Claimed, ClaimFilter, Claims } from './execution/Claims';
import type { Executions, Slot } from './execution/Executions';
import type { FlowRegistry } from './execution/FlowRegistry';
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

/** What a worker uses. */
export interface WorkerDeps {
  readonly claims: Claims;
  readonly leases: Leases;
  readonly self: LeaseHolder;
  readonly clock: Clock;
  readonly leaseMs: number;
  readonly lifecycle: Lifecycle;
  readonly logger: Logger;
  /** The runs executing here: which are (a late lease of its own is not abandoned), how many are this worker's. */
  readonly executions: Pick<Executions, 'find' | 'occupied'>;
  /** Executes, here, a run this worker claimed, in its slot; settles when it stops here. */
  readonly execute: (claimed: Claimed, slot: Slot) => Promise<RunOutcome>;
  /** The named queues declared in this runtime, and where their claims go. */
  readonly flows: FlowRegistry;
  readonly queues: NamedQueueClaims;
  /** Time's work for these workflows: schedule ticks that came, runs past their deadline. */
  readonly tend: (workflows: string[]) => Promise<void>;
}

/** The worker `runtime.startWorker()` started. */
export interface WorkerHandle {
  /** Runs this worker is executing now. */
  readonly running: number;
  /** Stops claiming; runs already executing go on (`runtime.close()` hands them over). */
  stop(): Promise<void>;
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
    return this.deps.executions.occupied(this);
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
      const free = this.concurrency - this.running;
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
    const { claims, clock, leaseMs } = this.deps;
    const now = clock.now();
    const claimed = await claims.fromDefaultQueue(this.filter(free));
    for (const run of claimed) this.execute(run);
    let taken = claimed.length;
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
    const here = this.deps.executions.occupied(this, named.name);
    const limit = Math.min(room, (named.workerConcurrency ?? room) - here);
    if (limit < 1) return 0;
    const claimed = await this.deps.claims.fromQueue(named, this.filter(limit));
    for (const run of claimed) this.execute(run);
    return claimed.length;
  }

  /**
   * Runs held on this host by a process that no longer exists: taken over now, not at expiry;
   * and runs of this process's own whose lease lapsed while no execution here held them (a
   * claim whose answer was lost with its connection), which other workers' claims leave alone.
   */
  private async takeOverAbandoned(limit: number): Promise<number> {
    const { leases, self, claims, executions } = this.deps;
    const names = new Set(this.options.workflows ?? workflowNames());
    const versions = this.options.versions;
    let taken = 0;
    for (const row of await leases.findLapsedHere(self, limit)) {
      if (!names.has(row.workflow) || (versions && !versions.includes(row.version ?? ''))) continue;
      if (executions.find(row.id)) continue;
      const claim = await claims.take(row);
      if (!claim) continue;
      this.execute({ row: { ...row, epoch: claim.epoch, claimToken: claim.token }, claim });
      taken++;
    }
    return taken;
  }

  private filter(limit: number): ClaimFilter {
    const { workflows, versions } = this.options;
    return { limit, workflows: workflows ?? workflowNames(), versions };
  }

  /** Executes a claimed run in one of this worker's slots (the registry counts them). */
  private execute(claimed: Claimed): void {
    const { row } = claimed;
    const slot: Slot = { owner: this, queue: row.queueName ?? undefined };
    this.deps.execute(claimed, slot).then(
      (outcome) => {
        // Cancelled by an operator: nothing for anyone to act on, so not a warning.
        if (outcome.status === 'cancelled') {
          this.deps.logger.info(`run "${row.id}" was cancelled; this worker stopped it`, {
            error: outcome.error,
          });
        }
        this.wakeLoop?.();
      },
      (error: unknown) => {
        this.deps.logger.warn(`run "${row.id}" stopped in this worker; it stays resumable`, {
          error,
        });
        this.wakeLoop?.();
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
