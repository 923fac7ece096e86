import { CorruptValueError } from '../errors/CorruptValueError';
import { NonDeterminismError } from '../errors/NonDeterminismError';
import { SerializationError } from '../errors/SerializationError';
import type { StepRow } from '../store/rows';
import type { RunStore } from '../store/RunStore';
import type { ActiveRun } from './ActiveRun';
import { encodeError } from '../codec/errorSnapshot';
import type { Settled } from './invokeAttempt';
import { isProcessAbort } from './processAbort';
import type { RuntimeKernel } from './RuntimeKernel';

/** Reads and writes step records: replaying a stored outcome, building and storing a new one. */
export class StepRecords {
  constructor(private readonly kernel: RuntimeKernel) {}

  /** Throws `NonDeterminismError` (and parks the run) if the code now calls another step here. */
  checkName(run: ActiveRun, seq: number, name: string, recorded: StepRow): void {
    if (recorded.name === name) return;
    const error = new NonDeterminismError(run.runId, seq, recorded.name, name);
    run.halt(error, 'needs_attention');
    throw error;
  }

  /** Returns or throws a recorded outcome, after checking the code still calls that step. */
  replay(run: ActiveRun, seq: number, name: string, recorded: StepRow): unknown {
    this.checkName(run, seq, name, recorded);
    const { codec, events } = this.kernel;
    const status = recorded.status === 'completed' ? 'completed' : 'failed';
    events.emit('step.replayed', { runId: run.runId, seq, step: name, status });
    try {
      if (status === 'completed') {
        return codec.decode(recorded.output ?? '', `step #${seq} "${name}" result`);
      }
      throw codec.decode(recorded.output ?? '', `step #${seq} "${name}" error`);
    } catch (error) {
      if (error instanceof CorruptValueError) run.halt(error, 'needs_attention');
      throw error;
    }
  }

  /** Writes the checkpoint; if another process stored this seq first, its outcome wins. */
  async record(run: ActiveRun, row: StepRow, via: RunStore = this.kernel.store): Promise<StepRow> {
    if ((await via.insertStep(row, run.epoch)) === 'inserted') return row;
    return (await via.loadStep(row.runId, row.seq)) ?? row;
  }

  /** The row to store; a result that cannot be stored becomes the step's failure. */
  row(
    run: ActiveRun,
    seq: number,
    name: string,
    settled: Settled,
    attempts: number,
    startedAt: number,
    finishedAt: number,
  ): { row: StepRow; settled: Settled } {
    const base = { runId: run.runId, seq, name, attempts, startedAt, finishedAt };
    const { codec } = this.kernel;
    if (settled.ok) {
      try {
        const output = codec.encode(settled.value, 'result');
        return { row: { ...base, status: 'completed', output }, settled };
      } catch (error) {
        if (!(error instanceof SerializationError)) throw error;
        settled = { ok: false, error };
      }
    }
    if (isProcessAbort(settled.error)) throw settled.error;
    const output = encodeError(codec, settled.error);
    return { row: { ...base, status: 'failed', output }, settled };
  }
}
