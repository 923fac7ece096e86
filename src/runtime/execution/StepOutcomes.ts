import type { Codec } from '../../codec/Codec';
import { encodeError } from '../../codec/errorSnapshot';
import type { StepPlan } from '../../decorators/StepPlan';
import { reasonText } from '../../errors/reasonText';
import { UnknownOutcomeError } from '../../errors/UnknownOutcomeError';
import type { Clock } from '../../ground/Clock';
import type { StepRow } from '../../store/rows';
import type { RunStore } from '../../store/RunStore';
import type { RuntimeEvents } from './RuntimeEvents';
import type { RunState } from './RunState';
import { Stop } from './RunStop';
import type { StepReplay } from './StepReplay';
import type { StepWrite } from './writers/CheckpointWriter';
import type { StepRecords } from './StepRecords';
import { endedRow, stepRow } from './stepRow';

/**
 * The outcomes a step can reach without its body running to a stored result: taken from
 * another run that completed the same global key, unknown after a crash (at-most-once),
 * or parked for an operator.
 */
export class StepOutcomes {
  constructor(
    private readonly store: RunStore,
    private readonly records: StepRecords,
    private readonly codec: Codec,
    private readonly clock: Clock,
    private readonly events: RuntimeEvents,
    private readonly replay: StepReplay,
  ) {}

  /** Another run completed this global key: take its result without running the body. */
  async deduplicated(step: StepWrite, output: string): Promise<unknown> {
    const { run, seq, name } = step;
    const row = stepRow({
      ...{ runId: run.runId, seq, name, status: 'completed', output, attempts: 0 },
      ...{ startedAt: step.startedAt, finishedAt: this.clock.now() },
      idempotencyKey: step.storedKey,
    });
    const stored = await this.records.record(row, run);
    return this.replay.replay(run, seq, name, stored);
  }

  /**
   * An at-most-once step whose process died between its intent marker and its outcome:
   * never run it again. Record `UnknownOutcomeError` (so every replay sees the same), or
   * park the run for an operator.
   */
  async unknownOutcome(
    run: RunState,
    seq: number,
    step: Pick<StepPlan, 'name' | 'onUnknown'>,
    recorded: StepRow,
  ): Promise<never> {
    this.replay.checkName(run, seq, step.name, recorded);
    const error = new UnknownOutcomeError(run.runId, seq, step.name, new Date(recorded.startedAt));
    if (step.onUnknown === 'intervene') return this.park(run, seq, error);
    const finishedAt = this.clock.now();
    const ended = endedRow(recorded, 'failed', encodeError(this.codec, error), finishedAt);
    await this.store.completeIntent(ended, run.epoch);
    this.events.emit('step.failed', {
      runId: run.runId,
      seq,
      step: step.name,
      durationMs: finishedAt - recorded.startedAt,
      error,
    });
    throw error;
  }

  /** Parks the run at this step for an operator (`retry`, `resolveStep`, `cancel`). */
  async park(run: RunState, seq: number, error: unknown): Promise<never> {
    const encoded = encodeError(this.codec, error);
    await this.store.parkRun(
      run.runId,
      run.epoch,
      seq,
      encoded,
      reasonText(error),
      this.clock.now(),
    );
    throw run.stop(Stop.parked(error));
  }
}
