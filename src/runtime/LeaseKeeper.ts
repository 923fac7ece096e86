import type { Codec } from '../codec/Codec';
import { LeaseLostError } from '../errors/LeaseLostError';
import { MAX_TIMER_MS, type Clock } from '../ground/Clock';
import type { Lifecycle } from '../ground/Lifecycle';
import type { Logger } from '../ground/Logger';
import type { Leases } from '../store/Leases';
import type { RunClaims } from '../store/RunClaims';
import type { Executions } from './execution/Executions';

/** What keeping leases uses. */
export interface LeaseKeeperDeps {
  readonly leases: Leases;
  readonly queue: RunClaims;
  readonly executions: Executions;
  readonly codec: Codec;
  readonly clock: Clock;
  readonly lifecycle: Lifecycle;
  readonly logger: Logger;
  readonly leaseMs: number;
  /** Cancels runs past their deadline (so a runtime without a worker enforces them too). */
  readonly cancelOverdue: () => Promise<void>;
}

/**
 * Renews the leases of every run this process executes, on one timer and in one
 * statement, a third of a lease apart: a run whose lease lapses belongs to a process that
 * stopped (killed, frozen, cut off from the database). Runs cancelled or taken over
 * elsewhere are stopped here at the same time, not at their next write.
 */
export class LeaseKeeper {
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: LeaseKeeperDeps) {}

  start(): void {
    const every = Math.min(MAX_TIMER_MS, Math.max(50, Math.floor(this.deps.leaseMs / 3)));
    this.timer = setInterval(() => void this.renew(), every);
    this.timer.unref();
    this.deps.lifecycle.watchDeath(() => this.stop());
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async renew(): Promise<void> {
    const { leases, executions, clock, leaseMs, logger, lifecycle } = this.deps;
    const claims = executions.claims();
    if (claims.length === 0 || lifecycle.isDead) return;
    try {
      await leases.renew(claims, leaseMs, clock.now());
      await this.deps.cancelOverdue();
      await this.noticeLostRuns(new Map(claims.map((c) => [c.runId, c.epoch])));
    } catch (error) {
      // Closed or killed while renewing: its runs are handed over or dead with it, not lost.
      if (!lifecycle.isOpen && !lifecycle.isClosing) return;
      logger.warn('could not renew run leases; other processes may take these runs over', {
        error,
      });
    }
  }

  private async noticeLostRuns(mine: Map<string, number>): Promise<void> {
    const { queue, executions, codec } = this.deps;
    for (const stored of await queue.statuses([...mine.keys()])) {
      const epoch = mine.get(stored.id)!;
      if (stored.status === 'cancelled') {
        const reason = codec.decode(stored.error ?? '', `run "${stored.id}" error`);
        executions.cancelLocal(stored.id, reason);
      } else if (stored.epoch !== epoch) {
        executions.abortLocal(stored.id, new LeaseLostError(stored.id, epoch));
      }
    }
  }
}
