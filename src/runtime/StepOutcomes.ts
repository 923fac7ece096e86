import type { StepMetadata } from '../decorators/metadata';
import { UnknownOutcomeError } from '../errors/UnknownOutcomeError';
import type { StepRow } from '../store/rows';
import type { ActiveRun } from './ActiveRun';
import { encodeError } from '../codec/errorSnapshot';
import type { Settled } from './invokeAttempt';
import type { RuntimeKernel } from './RuntimeKernel';
import type { StepRecords } from './StepRecords';

/**
 * The outcomes a step can reach without its body running to a stored result: taken from
 * another run that completed the same global key, unknown after a crash (at-most-once),
 * or parked for an operator.
 */
export class StepOutcomes {
  constructor(
    private readonly kernel: RuntimeKernel,
    private readonly records: StepRecords,
  ) {}

  /** Another run completed this global key: take its result without running the body. */
  async deduplicated(
    run: ActiveRun,
    seq: number,
    name: string,
    output: string,
    startedAt: number,
  ): Promise<unknown> {
    const row: StepRow = {
      runId: run.runId,
      seq,
      name,
      status: 'completed',
      output,
      attempts: 0,
      startedAt,
      finishedAt: this.kernel.clock.now(),
    };
    const stored = await this.records.record(run, row);
    return this.records.replay(run, seq, name, stored);
  }

  /**
   * An at-most-once step whose process died between its intent marker and its outcome:
   * never run it again. Record `UnknownOutcomeError` (so every replay sees the same), or
   * park the run for an operator.
   */
  async unknownOutcome(
    run: ActiveRun,
    seq: number,
    step: StepMetadata,
    recorded: StepRow,
  ): Promise<never> {
    this.records.checkName(run, seq, step.name, recorded);
    const error = new UnknownOutcomeError(run.runId, seq, step.name, new Date(recorded.startedAt));
    const { store, codec, clock, events } = this.kernel;
    if (step.onUnknown === 'intervene') {
      await store.parkRun(run.runId, run.epoch, seq, encodeError(codec, error), clock.now());
      run.halt(error, 'parked');
      throw error;
    }
    const finishedAt = clock.now();
    await store.completeIntent(
      { ...recorded, status: 'failed', output: encodeError(codec, error), finishedAt },
      run.epoch,
    );
    events.emit('step.failed', {
      runId: run.runId,
      seq,
      step: step.name,
      durationMs: finishedAt - recorded.startedAt,
      error,
    });
    throw error;
  }

  /** Parks the run at this step for an operator (`retry`, `resolveStep`, `cancel`). */
  async park(run: ActiveRun, seq: number, outcome: Settled): Promise<never> {
    const error = (outcome as { error: unknown }).error;
    const { store, clock, codec } = this.kernel;
    await store.parkRun(run.runId, run.epoch, seq, encodeError(codec, error), clock.now());
    run.halt(error, 'parked');
    throw error;
  }
}
