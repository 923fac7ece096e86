import {
  BatchWriter,
  type GroupCommitWriters,
  type GroupedWrite,
  type Landing,
  type Settle,
} from './BatchWriter';
import type { RunRow, StepRow } from './rows';
import type { RunFinish, RunStore } from './RunStore';

export type { GroupCommitWriters } from './BatchWriter';

/** Where a checkpoint's row is inserted: alone ({@link RunStore}) or in a group commit. */
export type StepInserter = Pick<RunStore, 'insertStep'>;

/**
 * Where new runs, checkpoints and runs' endings are written: alone ({@link RunStore}) or in
 * group commits, each write with its own answer.
 */
export type GroupedWrites = Pick<RunStore, 'insertRun' | 'insertStep' | 'finishRun'>;

/**
 * How many commits may be in flight at once, and the fewest rows worth a commit of their own
 * beside another one in flight (below it, one more commit costs more than the overlap gains).
 */
export interface GroupCommitLanes {
  readonly count: number;
  readonly fewestRows: number;
}

/** How much one group commit may hold (always at least one row, however large). */
export interface GroupCommitBounds {
  readonly maxRows: number;
  readonly maxBytes: number;
}

/** A row's settled commit, waiting to hand its answer to its step. */
interface Landed {
  readonly step: GroupedWrite;
  readonly landing: Landing;
}

/**
 * Group commit of plain checkpoints, new runs and runs' endings. With no commit in flight, a
 * write goes at once, as it would alone: one run waits no longer than today. Writes that
 * arrive while commits are in flight wait, then go together in the next commit, up to the
 * bounds. Each write's promise settles only after the COMMIT that holds it, with its own
 * answer: stored (or created), a duplicate, or its own error (a lost fence fails its step,
 * or its run's ending, alone).
 *
 * With more than one lane (a server database, whose commits can overlap on separate
 * connections), the JavaScript of some steps runs while the others' commit is in flight:
 * a landed commit hands back only the share of its rows that evens out the lanes, and the
 * rest once the next commit is on the wire. One lane (SQLite, whose writes block the thread)
 * hands back every row at once.
 */
export class GroupCommit implements GroupedWrites {
  private readonly waiting: GroupedWrite[] = [];
  private readonly held: Landed[] = [];
  /** Rows in each commit in flight. */
  private readonly inFlight = new Set<{ rows: number }>();
  private scheduled = false;
  /** One lane's share of the rows in flight, as of the last commit that landed. */
  private share = 1;

  private readonly batchWriter: BatchWriter;

  constructor(
    private readonly runs: RunStore,
    writers: GroupCommitWriters,
    private readonly bounds: GroupCommitBounds,
    private readonly lanes: GroupCommitLanes,
  ) {
    this.batchWriter = new BatchWriter(runs, writers);
  }

  insertRun(row: RunRow, leaseMs: number | null): Promise<boolean> {
    if (this.idle()) return this.writeAlone(this.runs.insertRun(row, leaseMs));
    const bytes = row.args.length + row.id.length + row.workflow.length + 128;
    return this.queued((settle) => ({ kind: 'start', row, leaseMs, bytes, settle }));
  }

  insertStep(row: StepRow, epoch: number): Promise<'inserted' | 'duplicate'> {
    if (this.idle()) return this.writeAlone(this.runs.insertStep(row, epoch));
    const bytes = (row.output?.length ?? 0) + row.name.length + row.runId.length + 64;
    return this.queued((settle) => ({ kind: 'step', row, epoch, bytes, settle }));
  }

  finishRun(runId: string, epoch: number, finish: RunFinish, now: number): Promise<void> {
    if (this.idle()) return this.writeAlone(this.runs.finishRun(runId, epoch, finish, now));
    const bytes = (finish.result?.length ?? 0) + (finish.error?.length ?? 0) + runId.length + 64;
    return this.queued((settle) => ({ kind: 'finish', runId, epoch, finish, now, bytes, settle }));
  }

  /** A write that waits for the next commit; its promise settles with its own landing. */
  private queued<T>(write: (settle: Settle) => GroupedWrite): Promise<T> {
    return new Promise<T>((resolve, reject) =>
      this.enqueue(
        write((landing) =>
          landing.status === 'fulfilled'
            ? resolve(landing.value as T)
            : // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the store's error, as it is
              reject(landing.reason),
        ),
      ),
    );
  }

  /** Whether nothing is in flight or about to go: a write then goes at once, alone. */
  private idle(): boolean {
    return this.inFlight.size === 0 && !this.scheduled;
  }

  private writeAlone<T>(written: Promise<T>): Promise<T> {
    this.inFlight.add(this.alone);
    written.then(this.aloneLanded, this.aloneLanded);
    return written;
  }

  private enqueue(waiting: GroupedWrite): void {
    // A free lane may take the write in the next commit, at the end of this turn.
    if (this.inFlight.size < this.lanes.count) this.schedule();
    this.waiting.push(waiting);
  }

  /** The row written at once (one at a time: only with nothing else in flight). */
  private readonly alone = { rows: 1 };
  private readonly aloneLanded = (): void => {
    this.inFlight.delete(this.alone);
    // Nothing waits: the run's next write goes at once too (one run's steps take no tick).
    if (this.waiting.length > 0) this.schedule();
  };

  /**
   * The next commits start once the steps that the last one released have run on to their
   * next checkpoints: after this turn's promise callbacks (on SQLite, whose writes are
   * synchronous, they all run in the turn that wrote).
   */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    process.nextTick(this.commitWaiting);
  }

  private readonly commitWaiting = (): void => {
    this.scheduled = false;
    while (this.laneFree()) this.commit(this.take());
    // A share of the held rows goes back once the commits just started are on their way:
    // the drivers send on a tick queued inside `commit`, which runs before this one.
    if (this.held.length > 0) process.nextTick(this.releaseHeld);
  };

  /** Whether the waiting rows should start a commit now: alone, or enough to share a lane. */
  private laneFree(): boolean {
    const { count, fewestRows } = this.lanes;
    if (this.waiting.length === 0) return false;
    if (this.inFlight.size === 0) return true;
    return this.inFlight.size < count && this.waiting.length >= fewestRows;
  }

  private commit(batch: GroupedWrite[]): void {
    const commit = { rows: batch.length };
    this.inFlight.add(commit);
    const landed = (landings: readonly Landing[]): void => {
      this.inFlight.delete(commit);
      this.handBack(batch, landings);
    };
    // One callback settles the rows and schedules the next commit: each `then` is a promise
    // on every checkpoint.
    if (batch.length === 1) {
      this.batchWriter.one(batch[0]).then(
        (value) => landed([{ status: 'fulfilled', value }]),
        (reason: unknown) => landed([{ status: 'rejected', reason }]),
      );
      return;
    }
    this.batchWriter.together(batch).then(
      landed,
      // The commit itself failed (after the store's retries): every row of it fails alike.
      (reason: unknown) => landed(batch.map(() => ({ status: 'rejected', reason }))),
    );
  }

  /**
   * Settles a landed commit's rows: all of them with one lane. With more, the rows in flight
   * are shared out evenly over the lanes: as many as one lane's share now, the rest held and
   * handed back a share at a time, each once the commit before it is on its way.
   */
  private handBack(batch: readonly GroupedWrite[], landings: readonly Landing[]): void {
    if (
      batch.length === 1 &&
      this.inFlight.size === 0 &&
      this.waiting.length + this.held.length === 0
    ) {
      // One write released and nothing else about: its run's next write goes at once.
      batch[0].settle(landings[0]);
      return;
    }
    let now = batch.length;
    const { count, fewestRows } = this.lanes;
    if (count > 1 && batch.length > 1) {
      let rows = batch.length + this.held.length + this.waiting.length;
      for (const commit of this.inFlight) rows += commit.rows;
      this.share = Math.max(fewestRows, Math.ceil(rows / count));
      now = Math.min(batch.length, this.share);
    }
    for (let i = 0; i < now; i++) batch[i].settle(landings[i]);
    for (let i = now; i < batch.length; i++)
      this.held.push({ step: batch[i], landing: landings[i] });
    this.schedule();
  }

  private readonly releaseHeld = (): void => {
    for (const { step, landing } of this.held.splice(0, this.share)) step.settle(landing);
    this.schedule();
  };

  /** The oldest waiting rows that fit in one commit. */
  private take(): GroupedWrite[] {
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
