import type { Clock } from '../../ground/Clock';
import type { Lifecycle } from '../../ground/Lifecycle';
import type { RunState } from './RunState';
import type { StepReplay } from './StepReplay';
import type { StepRecords } from './StepRecords';

/**
 * Values a workflow must see identically on every replay (`ctx.now()`, `ctx.random()`,
 * `ctx.uuid()`, `ctx.patched()`), each recorded at its sequence number. Synchronous for the
 * caller: the write goes on in the background and completes before the next step's body.
 */
export class RecordedValues {
  constructor(
    private readonly records: StepRecords,
    private readonly clock: Clock,
    private readonly replay: StepReplay,
    private readonly lifecycle: Lifecycle,
  ) {}

  record<T>(run: RunState, name: string, produce: () => T): T {
    run.assertRunnable();
    const seq = run.nextSeq();
    const recorded = run.history.get(seq);
    if (recorded) return this.replay.replay(run, seq, name, recorded) as T;
    // A dead runtime's workflow code (one that caught the crash) must not see a value that
    // is never stored: the next life would record another one.
    this.lifecycle.assertAlive(`record ${name} #${seq} of run "${run.runId}"`);
    const value = produce();
    const now = this.clock.now();
    const built = this.replay.build(run, seq, name, { ok: true, value }, 1, now, now, null);
    const { row, settled } = built;
    if (!settled.ok) throw settled.error;
    run.track(this.records.record(row, run));
    return value;
  }

  /**
   * True on the code path a run takes when it reaches this point on new code (recorded as a
   * marker), false for a run whose history shows it passed this point on old code (then
   * nothing is consumed, so the rest of its history still lines up).
   */
  patched(run: RunState, id: string): boolean {
    run.assertRunnable();
    const marker = `patch:${id}`;
    const recorded = run.history.get(run.peekSeq());
    if (recorded && recorded.name !== marker) return false;
    return this.record(run, marker, () => true);
  }

  /** Consumes the marker of runs that recorded one, and nothing else. */
  deprecatePatch(run: RunState, id: string): void {
    if (run.history.get(run.peekSeq())?.name === `patch:${id}`) run.nextSeq();
  }
}
