import type { StepRow } from '../../store/rows';
import { landedAtOnce, type RunStore } from '../../store/RunStore';
import type { StepInserter } from '../../store/GroupCommit';

/** The claim a record is fenced by: its epoch must still hold the run. */
export interface Fence {
  readonly epoch: number;
}

/**
 * "Record this step, fenced by this claim": the one way a new step outcome is stored. One
 * conditional insert; when another writer stored that seq first, its row is the outcome
 * (the first writer wins); when the claim no longer holds the run, `LeaseLostError`.
 */
export class StepRecords {
  /**
   * Inserts through `inserter` (a group commit, or `store` itself) and reads a winner's row
   * from `store`; both may be bound to a transaction (see {@link StepRecords.within}).
   */
  constructor(
    private readonly store: RunStore,
    private readonly inserter: StepInserter = store,
  ) {}

  /** The same operation inside the transaction `tx`. */
  static within(tx: RunStore): StepRecords {
    return new StepRecords(tx);
  }

  /** Stores `row` under `fence`; resolves to the row that is stored (this one, or the winner's). */
  record(row: StepRow, fence: Fence): Promise<StepRow> {
    return this.stored(row, this.inserter.insertStep(row, fence.epoch));
  }

  /**
   * {@link record}, answered with `row` itself, not a promise, when it went in before the
   * call returned (SQLite): the step then awaits nothing.
   */
  recordNow(row: StepRow, fence: Fence): StepRow | Promise<StepRow> {
    const answer = this.inserter.insertStep(row, fence.epoch);
    return landedAtOnce(answer) ? row : this.stored(row, answer);
  }

  private stored(row: StepRow, answer: Promise<'inserted' | 'duplicate'>): Promise<StepRow> {
    const { store } = this;
    // Chained rather than awaited: this is every checkpoint's one write.
    return answer.then((result) =>
      result === 'inserted'
        ? row
        : store.loadStep(row.runId, row.seq).then((stored) => stored ?? row),
    );
  }
}
