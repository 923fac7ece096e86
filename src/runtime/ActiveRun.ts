import type { StepRow } from '../store/rows';

/** Why this process stopped executing a run before its workflow returned. */
export interface RunHalt {
  readonly error: unknown;
  /** `needs_attention`: park the run; `abort`: write nothing, leave it resumable. */
  readonly disposition: 'needs_attention' | 'abort';
}

/**
 * The in-memory state of a run this process is executing: its recorded history, the
 * next sequence number, and background writes (recorded values) not yet confirmed.
 */
export class ActiveRun {
  private seq = 0;
  private writes: Promise<void> = Promise.resolve();
  private writeFailure: { error: unknown } | undefined;
  private haltReason: RunHalt | undefined;

  constructor(
    readonly runId: string,
    readonly workflow: string,
    readonly epoch: number,
    readonly history: ReadonlyMap<number, StepRow>,
  ) {}

  /** Takes the next sequence number. Synchronous, so `Promise.all` order is the call order. */
  nextSeq(): number {
    return this.seq++;
  }

  /** Adds a background write that must succeed before any later effect or the run's end. */
  track(write: Promise<unknown>): void {
    const settled = write.then(
      () => undefined,
      (error: unknown) => {
        this.writeFailure ??= { error };
      },
    );
    this.writes = this.writes.then(() => settled);
  }

  /** Waits for tracked writes; throws the first one that failed. */
  async flush(): Promise<void> {
    await this.writes;
    if (this.writeFailure) throw this.writeFailure.error;
  }

  get halted(): RunHalt | undefined {
    return this.haltReason;
  }

  /** Stops the run here; the first reason wins. */
  halt(error: unknown, disposition: RunHalt['disposition']): void {
    this.haltReason ??= { error, disposition };
  }
}
