import { LeaseLostError } from '../errors/LeaseLostError';
import type { RuntimeKernel } from './RuntimeKernel';

/**
 * Renews the leases of every run this process executes, on one timer and in one
 * statement, a third of a lease apart: a run whose lease lapses belongs to a process that
 * stopped (killed, frozen, cut off from the database).
 */
export class LeaseKeeper {
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly kernel: RuntimeKernel) {}

  start(): void {
    const every = Math.max(50, Math.floor(this.kernel.leaseMs / 3));
    this.timer = setInterval(() => void this.renew(), every);
    this.timer.unref();
    this.kernel.lifecycle.watchDeath(() => this.stop());
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Runs cancelled or taken over elsewhere stop here now, not at their next write. */
  private async noticeLostRuns(): Promise<void> {
    const { queue, launcher, codec } = this.kernel;
    const mine = new Map(launcher.activeRuns().map((r) => [r.runId, r.epoch]));
    for (const stored of await queue.statuses([...mine.keys()])) {
      const epoch = mine.get(stored.id)!;
      if (stored.status === 'cancelled') {
        launcher.cancelLocal(
          stored.id,
          codec.decode(stored.error ?? '', `run "${stored.id}" error`),
        );
      } else if (stored.epoch !== epoch) {
        launcher.abortLocal(stored.id, new LeaseLostError(stored.id, epoch));
      }
    }
  }

  private async renew(): Promise<void> {
    const { store, workerId, clock, leaseMs, logger, lifecycle } = this.kernel;
    if (!this.kernel.launcher.hasActiveRuns() || lifecycle.isDead) return;
    try {
      const runIds = this.kernel.launcher.activeRuns().map((r) => r.runId);
      await store.renewLeases(workerId, runIds, clock.now() + leaseMs, clock.now());
      await this.noticeLostRuns();
    } catch (error) {
      logger.warn('could not renew run leases; other processes may take these runs over', {
        error,
      });
    }
  }
}
