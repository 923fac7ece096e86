import type { AttemptRow, StepRow } from '../../store/rows';
import type { ClaimToken } from '../../store/Leases';
import type { WorkflowCall } from './WorkflowCall';
import type { RunStop } from './RunStop';

/** Data a claim holds in memory for a while (a stream's batch), stored before a step's checkpoint. */
export interface RunBuffer {
  /** Whether anything is held or being written. */
  readonly pending: boolean;
  /** Stores what is held; throws what a background write of it failed with. */
  flush(): Promise<void>;
}

/**
 * The in-memory state of one claim of a run executing here: the call, the claim every write
 * is fenced by, the recorded history, the next sequence number, background writes not yet
 * confirmed, and its cancellation signal.
 */
export class RunState {
  /** Aborted by `runtime.cancel()`; every step body of this run sees it through `ctx.signal`. */
  readonly cancellation = new AbortController();
  private seq = 0;
  private writes: Promise<void> = Promise.resolve();
  /** Tracked writes not yet settled; flush() costs nothing (no await) when there are none. */
  private pendingWrites = 0;
  private writeFailure: { error: unknown } | undefined;
  private stopReason: RunStop | undefined;
  private readonly buffers = new Map<string, RunBuffer>();

  constructor(
    readonly claim: ClaimToken,
    readonly call: WorkflowCall,
    readonly history: ReadonlyMap<number, StepRow>,
    readonly attempts: ReadonlyMap<number, readonly AttemptRow[]> = new Map(),
  ) {}

  get runId(): string {
    return this.claim.runId;
  }

  /** The fencing epoch of this claim: every write is conditional on it. */
  get epoch(): number {
    return this.claim.epoch;
  }

  get workflow(): string {
    return this.call.plan.name;
  }

  /** The sequence number the next call will take, without taking it. */
  peekSeq(): number {
    return this.seq;
  }

  /** Takes the next sequence number. Synchronous, so `Promise.all` order is the call order. */
  nextSeq(): number {
    return this.seq++;
  }

  /** Adds a background write that must succeed before any later effect or the run's end. */
  track(write: Promise<unknown>): void {
    this.pendingWrites++;
    const settled = write.then(
      () => {
        this.pendingWrites--;
      },
      (error: unknown) => {
        this.pendingWrites--;
        this.writeFailure ??= { error };
      },
    );
    this.writes = this.writes.then(() => settled);
  }

  /** Waits for tracked writes; throws the first one that failed. */
  async flush(): Promise<void> {
    if (this.buffers.size > 0) await this.flushBuffers();
    await this.writes;
    if (this.writeFailure) throw this.writeFailure.error;
  }

  /** Whether flush() has anything to wait for or report (the hot path skips it otherwise). */
  needsFlush(): boolean {
    return this.pendingWrites > 0 || this.writeFailure !== undefined || this.hasPendingBuffers();
  }

  /** The buffer under `key` of this claim, created by `create` the first time. */
  buffer<B extends RunBuffer>(key: string, create: () => B): B {
    let buffer = this.buffers.get(key) as B | undefined;
    if (!buffer) this.buffers.set(key, (buffer = create()));
    return buffer;
  }

  /** Whether a buffer holds data not yet stored. */
  hasPendingBuffers(): boolean {
    if (this.buffers.size === 0) return false;
    for (const buffer of this.buffers.values()) if (buffer.pending) return true;
    return false;
  }

  /** Stores what every buffer holds. */
  async flushBuffers(): Promise<void> {
    await Promise.all([...this.buffers.values()].map((buffer) => buffer.flush()));
  }

  /** Why the run stopped here, if it did. */
  get halted(): RunStop | undefined {
    return this.stopReason;
  }

  /** Stops the run here (the first stop wins) and returns the error to unwind the workflow with. */
  stop(stop: RunStop): unknown {
    this.stopReason ??= stop;
    return stop.error;
  }

  /** Throws if the run may not take another step: halted or cancelled. */
  assertRunnable(): void {
    if (this.stopReason) throw this.stopReason.error;
    if (this.cancellation.signal.aborted) throw this.cancellation.signal.reason;
  }
}

/** Groups stored attempts by step sequence number. */
export function attemptsBySeq(attempts: readonly AttemptRow[]): Map<number, AttemptRow[]> {
  const bySeq = new Map<number, AttemptRow[]>();
  for (const attempt of attempts) {
    const list = bySeq.get(attempt.seq) ?? [];
    list.push(attempt);
    bySeq.set(attempt.seq, list);
  }
  return bySeq;
}
