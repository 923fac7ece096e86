import type { Codec } from '../../codec/Codec';
import { RunNotFoundError } from '../../errors/RunNotFoundError';
import { realClock, type Clock } from '../../ground/Clock';
import type { Lifecycle } from '../../ground/Lifecycle';
import type { LeaseHolder } from '../../ground/ProcessIdentity';
import { leaseLapsed } from '../../store/Leases';
import { isTerminalStatus } from '../../model/RunStatus';
import type { RunStore } from '../../store/RunStore';
import { seenToEnd, type RunOutcome } from './RunOutcome';
import { storedOutcome } from './storedOutcome';

const FIRST_POLL_MS = 50;
const MAX_POLL_MS = 1000;

/**
 * Watches a run that another holder executes (another process, or another runtime in this
 * one), polling the store with real time, until it ends, is released to `waiting`, or may be
 * taken over (then it is due now for whoever watches). A due run of a named queue is watched
 * on until a worker claims it (only a worker's claim starts it). A run parked in `needs_attention` is
 * watched on: an operator may still resolve it. A run found ended at the first look is a stored
 * outcome handed back; one seen to end at a later look, the watcher saw end.
 */
export class RunObserver {
  constructor(
    private readonly store: RunStore,
    private readonly codec: Codec,
    private readonly clock: Clock,
    private readonly lifecycle: Lifecycle,
    private readonly self: LeaseHolder,
  ) {}

  async observe(runId: string, stop?: AbortSignal): Promise<RunOutcome> {
    let firstLook = true;
    for (let delay = FIRST_POLL_MS; ; delay = Math.min(delay * 2, MAX_POLL_MS)) {
      this.lifecycle.assertAlive(`wait for run "${runId}"`);
      const row = await this.store.loadRun(runId);
      if (!row) throw new RunNotFoundError(runId);
      if (isTerminalStatus(row.status)) {
        const outcome = storedOutcome(this.codec, row);
        return firstLook ? outcome : seenToEnd(outcome);
      }
      const now = this.clock.now();
      // A named queue's due run starts only through a worker's claim: watch for that.
      const dueInQueue = row.queueName && row.wakeAt !== null && row.wakeAt <= now;
      if (row.status === 'waiting' && !dueInQueue) {
        return { status: 'waiting', wakeAt: row.wakeAt };
      }
      if (leaseLapsed(row, this.self)) return { status: 'waiting', wakeAt: now };
      await realClock.sleep(delay, stop);
      firstLook = false;
    }
  }
}
