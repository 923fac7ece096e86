import type { Acquisition, RunIdentity } from './Acquisition';
import type { ClaimToken } from './Claims';
import type { RunOperations } from './RunScope';
import { seenToEnd, type RunOutcome } from './RunOutcome';
import type { RunState } from './RunState';

/**
 * Claims a run, or finds it ended or held by another. `superseded()` turns true once a claim
 * made elsewhere in this process (a worker's) entered for the run: then it must not claim.
 */
export type Acquire = (superseded: () => boolean) => Promise<Acquisition>;

/** Whose slot an execution takes: a worker counts the runs it executes by it. */
export interface Slot {
  readonly owner: object;
  /** The named queue the run was claimed from, if any (for its per-worker limit). */
  readonly queue: string | undefined;
}

/** How a caller enters a run's execution: claim it here if it may, or bring a claim held already. */
export type Entrance =
  | {
      readonly kind: 'acquire';
      readonly identity: RunIdentity | undefined;
      readonly operations: RunOperations;
      readonly acquire: Acquire;
    }
  | {
      readonly kind: 'claimed';
      readonly identity: RunIdentity | undefined;
      readonly operations: RunOperations;
      /** Held from the moment the entrance is made: kept renewed while its history loads. */
      readonly claim: ClaimToken;
      readonly slot: Slot | undefined;
      /** Loads the history of the claimed run (one query). */
      readonly load: () => Promise<Acquisition>;
    };

/** What an entry executes, watches and is registered through (its registry, `Executions`). */
export interface EntryHost {
  execute(state: RunState, resumed: boolean, operations: RunOperations): Promise<RunOutcome>;
  observe(runId: string, stop: AbortSignal): Promise<RunOutcome>;
  add(entry: RunEntry): void;
  release(entry: RunEntry): void;
}

const ignore = (): undefined => undefined;

/**
 * One run this process follows, from before its claim is tried until its part here ends:
 * executing it (a claim here), or watching it (ended, parked, or held by another). A claim
 * that enters while the entry is still acquiring is adopted: the execution of that claim is
 * the entry's outcome.
 */
export class RunEntry {
  /** The claimed run's state while it executes here. */
  state: RunState | undefined;
  /** The claim this process holds on the run, from the moment it is known (for renewal). */
  claim: ClaimToken | undefined;
  slot: Slot | undefined;
  readonly acquired: Promise<void>;
  readonly outcome: Promise<RunOutcome>;
  readonly identity: RunIdentity | undefined;
  private adopted = false;
  private readonly adoption: Promise<RunOutcome>;
  private readonly settleAdoption: (outcome: Promise<RunOutcome>) => void;

  constructor(
    readonly runId: string,
    entrance: Entrance,
    private readonly host: EntryHost,
  ) {
    this.identity = entrance.identity;
    let settle: ((outcome: Promise<RunOutcome>) => void) | undefined;
    this.adoption = new Promise<RunOutcome>((resolve) => (settle = resolve));
    this.adoption.catch(ignore);
    this.settleAdoption = settle ?? ignore;
    if (entrance.kind === 'claimed') [this.claim, this.slot] = [entrance.claim, entrance.slot];
    host.add(this);
    const acquisition =
      entrance.kind === 'claimed' ? entrance.load() : entrance.acquire(() => this.adopted);
    this.acquired = acquisition.then(ignore);
    this.acquired.catch(ignore);
    this.outcome = this.drive(acquisition, entrance.operations);
  }

  /**
   * Takes over a claim made elsewhere in this process while this entry has none executing;
   * false if it has one (that one has lost its claim) or adopted one already.
   */
  adopt(entrance: Extract<Entrance, { kind: 'claimed' }>): boolean {
    if (this.state || this.adopted) return false;
    [this.claim, this.slot, this.adopted] = [entrance.claim, entrance.slot, true];
    this.settleAdoption(this.drive(entrance.load(), entrance.operations));
    return true;
  }

  private drive(acquisition: Promise<Acquisition>, ops: RunOperations): Promise<RunOutcome> {
    const outcome = acquisition.then(
      (acquired) => this.follow(acquired, ops),
      (error: unknown) => {
        if (this.adopted) return this.adoption;
        this.host.release(this);
        throw error;
      },
    );
    outcome.catch(ignore);
    return outcome;
  }

  private async follow(acquired: Acquisition, ops: RunOperations): Promise<RunOutcome> {
    if (acquired.kind === 'claimed') return this.execute(acquired.state, acquired.resumed, ops);
    if (this.adopted) return this.adoption;
    let outcome: RunOutcome;
    if (acquired.kind === 'settled') outcome = acquired.outcome;
    else {
      const stop = new AbortController();
      try {
        // Seen held before it ended: its callers watched it end.
        const watched = this.host.observe(this.runId, stop.signal);
        outcome = seenToEnd(await Promise.race([watched, this.adoption]));
      } catch (error) {
        if (this.adopted) return this.adoption;
        this.host.release(this);
        throw error;
      } finally {
        stop.abort();
      }
      if (this.adopted) return this.adoption;
    }
    this.host.release(this);
    return outcome;
  }

  private async execute(state: RunState, resumed: boolean, ops: RunOperations) {
    [this.state, this.claim] = [state, state.claim];
    try {
      return await this.host.execute(state, resumed, ops);
    } finally {
      [this.state, this.claim] = [undefined, undefined];
      this.host.release(this);
    }
  }
}
