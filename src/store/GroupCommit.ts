import type { StepRow } from './rows';
import type { RunStore } from './RunStore';
import type { FencedStep, StepBatches, StepLanding } from './StepBatches';

/** Where a checkpoint's row is inserted: alone ({@link RunStore}) or in a group commit. */
export type StepInserter = Pick<RunStore, 'insertStep'>;

/** How much one group commit may hold (always at least one row, however large). */
export interface GroupCommitBounds {
  readonly maxRows: number;
  readonly maxBytes: number;
}

interface Waiting extends FencedStep {
  readonly bytes: number;
  readonly settle: (landing: StepLanding) => void;
}

/**
 * Group commit of plain checkpoints. With no commit in flight, a row is written at once, as
 * it would be alone: one run waits no longer than today. Rows that arrive while a commit is
 * in flight wait for it, then go together in the next commit, up to the bounds. Each row's
 * promise settles only after the COMMIT that holds it, with its own answer: stored, a
 * duplicate, or its own error (a lost fence fails its step alone).
 */
export class GroupCommit implements StepInserter {
  private readonly waiting: Waiting[] = [];
  private inFlight = false;

  constructor(
    private readonly runs: RunStore,
    private readonly batches: StepBatches,
    private readonly bounds: GroupCommitBounds,
  ) {}

  insertStep(row: StepRow, epoch: number): Promise<'inserted' | 'duplicate'> {
    if (!this.inFlight) {
      this.inFlight = true;
      const written = this.runs.insertStep(row, epoch);
      written.then(this.nextAfterThisTurn, this.nextAfterThisTurn);
      return written;
    }
    return new Promise((resolve, reject) =>
      this.waiting.push({
        row,
        epoch,
        bytes: rowBytes(row),
        settle: (landing) =>
          // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the store's error, as it is
          landing.status === 'fulfilled' ? resolve(landing.value) : reject(landing.reason),
      }),
    );
  }

  /**
   * The next commit starts once the steps that the last one released have run on to their
   * next checkpoints: after this turn's promise callbacks (on SQLite, whose writes are
   * synchronous, they all run in the turn that wrote).
   */
  private readonly nextAfterThisTurn = (): void => process.nextTick(this.commitWaiting);

  private readonly commitWaiting = (): void => {
    const batch = this.take();
    if (batch.length === 0) {
      this.inFlight = false;
      return;
    }
    // One callback settles the rows and schedules the next commit: each `then` is a promise
    // on every checkpoint.
    if (batch.length === 1) {
      const [step] = batch;
      this.runs.insertStep(step.row, step.epoch).then(
        (value) => this.landed(batch, [{ status: 'fulfilled', value }]),
        (reason: unknown) => this.landed(batch, [{ status: 'rejected', reason }]),
      );
      return;
    }
    this.batches.write(batch).then(
      (landings) => this.landed(batch, landings),
      // The commit itself failed (after the store's retries): every row of it fails alike.
      (reason: unknown) =>
        this.landed(
          batch,
          batch.map(() => ({ status: 'rejected', reason })),
        ),
    );
  };

  /** Settles each row of a commit with its landing, then lets the next commit start. */
  private landed(batch: readonly Waiting[], landings: readonly StepLanding[]): void {
    batch.forEach((step, i) => step.settle(landings[i]));
    this.nextAfterThisTurn();
  }

  /** The oldest waiting rows that fit in one commit. */
  private take(): Waiting[] {
    const { maxRows, maxBytes } = this.bounds;
    let count = 0;
    let bytes = 0;
    while (count < this.waiting.length && count < maxRows) {
      bytes += this.waiting[count].bytes;
      if (count > 0 && bytes > maxBytes) break;
      count++;
    }
    return this.waiting.splice(0, count);
  }
}

/** What a row costs a statement, roughly: its stored value and its names. */
function rowBytes(row: StepRow): number {
  return (row.output?.length ?? 0) + row.name.length + row.runId.length + 64;
}
