import type { Codec } from '../../codec/Codec';
import { encodeErrorAsStored } from '../../codec/errorSnapshot';
import { isCorruptValueError } from '../../errors/CorruptValueError';
import { NonDeterminismError } from '../../errors/NonDeterminismError';
import { isSerializationError } from '../../errors/SerializationError';
import type { StepRow } from '../../store/rows';
import type { RuntimeEvents } from './RuntimeEvents';
import type { Settled } from './invokeAttempt';
import { isProcessAbort } from './processAbort';
import type { RunState } from './RunState';
import { Stop } from './RunStop';
import { stepRow } from './stepRow';

/** A step record built from an outcome, and the outcome as the workflow will see it. */
export interface BuiltRow {
  readonly row: StepRow;
  readonly settled: Settled;
}

/**
 * Turns outcomes into step records and back: replays a recorded outcome (no I/O) after
 * checking the code still calls that step there, and builds the row a new outcome is
 * stored as (a result that cannot be stored becomes the step's failure).
 */
export class StepReplay {
  constructor(
    private readonly codec: Codec,
    private readonly events: RuntimeEvents,
  ) {}

  /** Throws `NonDeterminismError` (and parks the run) if the code now calls another step here. */
  checkName(run: RunState, seq: number, name: string, recorded: StepRow): void {
    if (recorded.name === name) return;
    throw run.stop(Stop.attention(new NonDeterminismError(run.runId, seq, recorded.name, name)));
  }

  /** Returns or throws a recorded outcome, after checking the code still calls that step. */
  replay(run: RunState, seq: number, name: string, recorded: StepRow): unknown {
    this.checkName(run, seq, name, recorded);
    const status = recorded.status === 'completed' ? 'completed' : 'failed';
    this.events.emit('step.replayed', { runId: run.runId, seq, step: name, status });
    try {
      if (status === 'completed') {
        return this.codec.decode(recorded.output ?? '', `step #${seq} "${name}" result`);
      }
      throw this.codec.decode(recorded.output ?? '', `step #${seq} "${name}" error`);
    } catch (error) {
      throw isCorruptValueError(error) ? run.stop(Stop.attention(error)) : error;
    }
  }

  /**
   * The row to store for `settled`; a result that cannot be stored becomes the failure. An
   * error that cannot be stored as it is (too large, or holding what cannot be stored) is
   * given to the workflow as stored — name and code kept, long texts cut — so that the live
   * run takes the branch its replay will.
   */
  build(
    run: RunState,
    seq: number,
    name: string,
    settled: Settled,
    attempts: number,
    startedAt: number,
    finishedAt: number,
    idempotencyKey: string | null,
  ): BuiltRow {
    const row = (status: StepRow['status'], output: string): StepRow =>
      stepRow({
        runId: run.runId,
        seq,
        name,
        status,
        output,
        attempts,
        startedAt,
        finishedAt,
        idempotencyKey,
      });
    if (settled.ok) {
      try {
        return { row: row('completed', this.codec.encode(settled.value, 'result')), settled };
      } catch (error) {
        if (!isSerializationError(error)) throw error;
        settled = { ok: false, error };
      }
    }
    if (isProcessAbort(settled.error)) throw settled.error;
    const stored = encodeErrorAsStored(this.codec, settled.error);
    if (!stored.exact) {
      settled = {
        ok: false,
        error: this.codec.decode(stored.text, `step #${seq} "${name}" error`),
      };
    }
    return { row: row('failed', stored.text), settled };
  }
}
