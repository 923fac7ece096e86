import { LeaseLostError } from '../../errors/LeaseLostError';
import type { Acquisition, RunIdentity } from './Acquisition';
import type { ClaimToken } from './Claims';
import { RunEntry, type Entrance, type EntryHost, type Slot } from './RunEntry';
import type { RunOperations } from './RunScope';
import type { RunOutcome } from './RunOutcome';
import type { RunState } from './RunState';
import { Stop } from './RunStop';

export type { Acquire, Entrance, Slot } from './RunEntry';

/** Executes a claimed run here, with the operations its workflow code does; settles when it stops here. */
export interface RunExecutor {
  execute(state: RunState, resumed: boolean, operations: RunOperations): Promise<RunOutcome>;
}

/** Watches a run another holder executes until it ends, waits, or may be taken over. */
export interface RunWatcher {
  observe(runId: string, stop: AbortSignal): Promise<RunOutcome>;
}

/** A run this process follows: `acquired` once it is claimed, found or seen held. */
export interface Tracked {
  readonly acquired: Promise<void>;
  readonly outcome: Promise<RunOutcome>;
  /** Who the run is, as the caller that made the entry said (or the claimed row). */
  readonly identity: RunIdentity | undefined;
}

/**
 * The one registry of runs executing in this process, and the one way into execution
 * ({@link Executions.ensure}): a caller joins the entry for its run if there is one; otherwise
 * an entry is made *before* the claim is tried, so two callers in one process never both
 * claim. A claim made already (a worker's batch, an operator action) enters the same way,
 * held from the moment it enters, and executes under the entry callers wait on.
 */
export class Executions {
  private readonly entries = new Map<string, RunEntry>();
  private readonly host: EntryHost;

  constructor(executor: RunExecutor, watcher: RunWatcher) {
    this.host = {
      execute: (state, resumed, operations) => executor.execute(state, resumed, operations),
      observe: (runId, stop) => watcher.observe(runId, stop),
      add: (entry) => void this.entries.set(entry.runId, entry),
      release: (entry) => {
        if (this.entries.get(entry.runId) === entry) this.entries.delete(entry.runId);
      },
    };
  }

  /**
   * Executes run `runId` here, or joins its execution here. An `acquire` entrance joins the
   * entry there is, else claims the run (if it may be claimed) under a new one. A `claimed`
   * entrance brings a claim made already: a caller still acquiring the run gives way to it;
   * an execution here that holds an older claim has lost it — it is stopped, and the new
   * claim runs once it has settled.
   */
  ensure(runId: string, entrance: Entrance): Tracked {
    const existing = this.entries.get(runId);
    if (entrance.kind === 'acquire') return existing ?? new RunEntry(runId, entrance, this.host);
    if (!existing) return new RunEntry(runId, entrance, this.host);
    if (existing.adopt(entrance)) return existing;
    if (existing.state) this.abort(existing.state, new LeaseLostError(runId, existing.state.epoch));
    const previous = existing.outcome.then(
      () => undefined,
      () => undefined,
    );
    const load = async (): Promise<Acquisition> => {
      await previous;
      return entrance.load();
    };
    const identity = entrance.identity ?? existing.identity;
    return new RunEntry(runId, { ...entrance, identity, load }, this.host);
  }

  /** The run's entry here, if this process follows it. */
  find(runId: string): Tracked | undefined {
    return this.entries.get(runId);
  }

  /** How many runs executing here took `owner`'s slots (in `queue`, when given). */
  occupied(owner: Slot['owner'], queue?: string): number {
    let count = 0;
    for (const { slot } of this.entries.values()) {
      if (slot?.owner === owner && (queue === undefined || slot.queue === queue)) count++;
    }
    return count;
  }

  /** Every claim this process holds, executing or about to (its lease must be kept). */
  claims(): ClaimToken[] {
    const claims: ClaimToken[] = [];
    for (const entry of this.entries.values()) if (entry.claim) claims.push(entry.claim);
    return claims;
  }

  /** Every outcome pending here (for a close's grace period). */
  pending(): Array<Promise<RunOutcome>> {
    return [...this.entries.values()].map((entry) => entry.outcome);
  }

  /** Stops a run executing here: it writes nothing more (taken over, or ended elsewhere). */
  abortLocal(runId: string, reason: unknown): void {
    const state = this.entries.get(runId)?.state;
    if (state) this.abort(state, reason);
  }

  /** Cancels a run executing here: its current step's signal aborts now. */
  cancelLocal(runId: string, reason: unknown): void {
    this.entries.get(runId)?.state?.cancellation.abort(reason);
  }

  private abort(state: RunState, reason: unknown): void {
    state.stop(Stop.abort(reason));
    state.cancellation.abort(reason);
  }
}
