import { LeaseLostError } from '../../errors/LeaseLostError';
import type { ClaimToken } from '../../store/Leases';
import type { Acquisition, RunIdentity } from './Acquisition';
import type { RunOutcome } from './RunOutcome';
import type { RunState } from './RunState';

/** Executes a claimed run here; settles when it stops here. */
export type ExecuteRun = (state: RunState, resumed: boolean) => Promise<RunOutcome>;
/** Watches a run another holder executes until it ends, waits, or may be taken over. */
export type ObserveRun = (runId: string, stop: AbortSignal) => Promise<RunOutcome>;
/**
 * Claims a run, or finds it ended or held by another. `superseded()` turns true once a claim
 * made elsewhere in this process (a worker's) was adopted for the run: then it must not claim.
 */
export type Acquire = (superseded: () => boolean) => Promise<Acquisition>;

/** A run this process follows: `acquired` once it is claimed, found or seen held. */
export interface Tracked {
  readonly acquired: Promise<void>;
  readonly outcome: Promise<RunOutcome>;
  /** Who the run is, as the caller that made the entry said (or the claimed row). */
  readonly identity: RunIdentity | undefined;
}

class Entry implements Tracked {
  state: RunState | undefined;
  /** The claim this process holds on the run, from the moment it is known (for renewal). */
  claim: ClaimToken | undefined;
  acquired!: Promise<void>;
  outcome!: Promise<RunOutcome>;
  adopted = false;
  /** Settles with the execution of a claim another part of this process made (a worker's). */
  readonly adoption: Promise<RunOutcome>;
  private settleAdoption!: (outcome: Promise<RunOutcome>) => void;

  constructor(
    readonly runId: string,
    readonly identity: RunIdentity | undefined,
  ) {
    this.adoption = new Promise<RunOutcome>((resolve) => (this.settleAdoption = resolve));
    this.adoption.catch(() => undefined);
  }

  adopt(outcome: Promise<RunOutcome>): void {
    this.adopted = true;
    this.settleAdoption(outcome);
  }
}

/**
 * The one registry of runs executing in this process, and the one way into execution: a
 * caller joins the entry for its run if there is one; otherwise an entry is made *before*
 * the claim is tried, so two callers in one process never both claim, and a claim another
 * part of this process made (a worker's batch) executes under the entry callers wait on.
 */
export class Executions {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly execute: ExecuteRun,
    private readonly observe: ObserveRun,
  ) {}

  /** Joins this run's entry here, or makes one and acquires the run under it. */
  ensure(runId: string, identity: RunIdentity | undefined, acquire: Acquire): Tracked {
    return this.entries.get(runId) ?? this.track(new Entry(runId, identity), acquire);
  }

  /**
   * Executes `claim`, made already elsewhere in this process (a worker, an operator action).
   * Callers waiting on the run here join it. An execution here that still holds an older
   * claim has lost it: it is stopped, and the new claim runs once it has settled.
   */
  adopt(
    runId: string,
    identity: RunIdentity | undefined,
    claim: ClaimToken,
    acquire: Acquire,
  ): Tracked {
    const existing = this.entries.get(runId);
    if (!existing) {
      const entry = new Entry(runId, identity);
      entry.claim = claim;
      return this.track(entry, acquire);
    }
    if (!existing.state && !existing.adopted) {
      existing.claim = claim;
      existing.adopt(this.drive(existing, acquire));
      return existing;
    }
    if (existing.state) this.abort(existing.state, new LeaseLostError(runId, existing.state.epoch));
    const previous = existing.outcome.then(
      () => undefined,
      () => undefined,
    );
    const next = new Entry(runId, identity ?? existing.identity);
    next.claim = claim;
    return this.track(next, async (superseded) => {
      await previous;
      return acquire(superseded);
    });
  }

  /** The run's entry here, if this process follows it. */
  find(runId: string): Tracked | undefined {
    return this.entries.get(runId);
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

  private track(entry: Entry, acquire: Acquire): Entry {
    this.entries.set(entry.runId, entry);
    entry.outcome = this.drive(entry, acquire);
    return entry;
  }

  private drive(entry: Entry, acquire: Acquire): Promise<RunOutcome> {
    const acquisition = acquire(() => entry.adopted);
    entry.acquired ??= acquisition.then(() => undefined);
    entry.acquired.catch(() => undefined);
    const outcome = acquisition.then(
      (acquired) => this.follow(entry, acquired),
      (error: unknown) => {
        if (entry.adopted) return entry.adoption;
        this.release(entry);
        throw error;
      },
    );
    outcome.catch(() => undefined);
    return outcome;
  }

  private async follow(entry: Entry, acquired: Acquisition): Promise<RunOutcome> {
    if (acquired.kind === 'claimed') {
      entry.state = acquired.state;
      entry.claim = acquired.state.claim;
      try {
        return await this.execute(acquired.state, acquired.resumed);
      } finally {
        entry.state = undefined;
        entry.claim = undefined;
        this.release(entry);
      }
    }
    if (entry.adopted) return entry.adoption;
    let outcome: RunOutcome;
    if (acquired.kind === 'settled') outcome = acquired.outcome;
    else {
      const stop = new AbortController();
      try {
        outcome = await Promise.race([this.observe(entry.runId, stop.signal), entry.adoption]);
      } catch (error) {
        if (entry.adopted) return entry.adoption;
        this.release(entry);
        throw error;
      } finally {
        stop.abort();
      }
      if (entry.adopted) return entry.adoption;
    }
    this.release(entry);
    return outcome;
  }

  /** Forgets an entry whose part here is over; later callers start afresh. */
  private release(entry: Entry): void {
    if (this.entries.get(entry.runId) === entry) this.entries.delete(entry.runId);
  }

  private abort(state: RunState, reason: unknown): void {
    state.halt(reason, 'abort');
    state.cancellation.abort(reason);
  }
}
