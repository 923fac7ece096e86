/**
 * Holds step bodies (`await hold.pass(runId)`) until the test opens it, so that the steps of
 * many runs reach their checkpoints in one turn: with group commit the first is written
 * alone and the others wait for it and go in one batch. A run named in `late` reaches its
 * checkpoint a few microtasks after the others, so it is never the one written alone.
 * `allHeld` settles once `expected` bodies are held; with `expected` 0 it holds nothing.
 */
export class StepHold {
  readonly allHeld: Promise<void>;
  private held = 0;
  private everyoneHeld!: () => void;
  private release!: () => void;
  private readonly opened = new Promise<void>((resolve) => (this.release = resolve));

  constructor(
    readonly who: string,
    private readonly expected: number,
    private readonly late: ReadonlySet<string> = new Set(),
  ) {
    this.allHeld = new Promise((resolve) => (this.everyoneHeld = resolve));
    if (expected === 0) this.open();
  }

  async pass(runId: string): Promise<void> {
    if (++this.held === this.expected) this.everyoneHeld();
    await this.opened;
    if (this.late.has(runId)) for (let hop = 0; hop < 8; hop++) await Promise.resolve();
  }

  /** Lets every held body, and every body that comes later, go on. */
  open(): void {
    this.release();
  }
}
