import type { FencedFinish, FinishBatches } from './FinishBatches';
import type { RunStore } from './RunStore';
import type { NewRun, StartBatches } from './StartBatches';
import type { FencedStep, StepBatches } from './StepBatches';

/** The store's writers of a batch, one for each kind of write that may join it. */
export interface GroupCommitWriters {
  readonly starts: StartBatches;
  readonly steps: StepBatches;
  readonly finishes: FinishBatches;
}

/**
 * How one write of a commit ended, handed to its waiter: a new run's, created or not; a
 * step's, stored or a duplicate; an ending's, stored.
 */
export type Landing = PromiseSettledResult<boolean | 'inserted' | 'duplicate' | void>;
export type Settle = (landing: Landing) => void;

export interface WaitingStart extends NewRun {
  readonly kind: 'start';
  readonly bytes: number;
  readonly settle: Settle;
}

export interface WaitingStep extends FencedStep {
  readonly kind: 'step';
  readonly bytes: number;
  readonly settle: Settle;
}

export interface WaitingFinish extends FencedFinish {
  readonly kind: 'finish';
  readonly bytes: number;
  readonly settle: Settle;
}

/** A write waiting for the next commit: a new run, a step's checkpoint, or a run's ending. */
export type GroupedWrite = WaitingStart | WaitingStep | WaitingFinish;

/**
 * Writes the batches of a group commit: one write alone as the store writes it, or a batch of
 * them, one statement (or SQLite transaction) for each kind of write in it.
 */
export class BatchWriter {
  constructor(
    private readonly runs: RunStore,
    private readonly writers: GroupCommitWriters,
  ) {}

  one(waiting: GroupedWrite): Promise<boolean | 'inserted' | 'duplicate' | void> {
    switch (waiting.kind) {
      case 'start':
        return this.runs.insertRun(waiting.row, waiting.leaseMs);
      case 'step':
        return this.runs.insertStep(waiting.row, waiting.epoch);
      case 'finish':
        return this.runs.finishRun(waiting.runId, waiting.epoch, waiting.finish, waiting.now);
    }
  }

  /**
   * Writes a batch: one statement for each kind of write in it, side by side (most batches
   * hold checkpoints alone); each write's landing in its place in the batch.
   */
  async together(batch: readonly GroupedWrite[]): Promise<readonly Landing[]> {
    const steps = batch.filter((w): w is WaitingStep => w.kind === 'step');
    if (steps.length === batch.length) return this.writers.steps.write(steps);
    const starts = batch.filter((w): w is WaitingStart => w.kind === 'start');
    const finishes = batch.filter((w): w is WaitingFinish => w.kind === 'finish');
    const landings = await Promise.all([
      landingsOf(starts, (rows) => this.writers.starts.write(rows)),
      landingsOf(steps, (rows) => this.writers.steps.write(rows)),
      landingsOf(finishes, (rows) => this.writers.finishes.write(rows)),
    ]);
    const next = { start: 0, step: 0, finish: 0 };
    const of = { start: landings[0], step: landings[1], finish: landings[2] };
    return batch.map((w) => of[w.kind][next[w.kind]++]);
  }
}

/**
 * The landings of one statement's writes: each its own, or, when the statement itself failed,
 * the same error for each (the other statement of the batch keeps its own answers).
 */
async function landingsOf<W, L extends Landing>(
  writes: readonly W[],
  write: (writes: readonly W[]) => Promise<L[]>,
): Promise<readonly Landing[]> {
  if (writes.length === 0) return [];
  return write(writes).catch((reason: unknown) =>
    writes.map((): Landing => ({ status: 'rejected', reason })),
  );
}
