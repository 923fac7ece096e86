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

  private async renew(): Promise<void> {
    const { store, workerId, clock, leaseMs, logger, lifecycle } = this.kernel;
    if (!this.kernel.launcher.hasActiveRuns() || lifecycle.isDead) return;
    try {
      await store.renewLeases(workerId, clock.now() + leaseMs, clock.now());
    } catch (error) {
      logger.warn('could not renew run leases; other processes may take these runs over', {
        error,
      });
    }
  }
}
