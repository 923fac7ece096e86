import type { RunState } from '../../../../../src/runtime/execution/RunState';
import type { StepWrite } from '../../../../../src/runtime/execution/writers/CheckpointWriter';
import type { StepRow } from '../../../../../src/store/rows';

/** What a writer is told of step `seq` of `run`. */
export function stepWrite(run: RunState, seq: number, key = `${run.runId}:${seq}`): StepWrite {
  return { run, seq, name: 'charge', key, storedKey: null, startedAt: 1000, target: 'Pay.charge' };
}

/** The completed outcome of `step`, as the step path builds it. */
export function completedRow(step: StepWrite, output = '"ok"'): StepRow {
  return {
    runId: step.run.runId,
    seq: step.seq,
    name: step.name,
    status: 'completed',
    output,
    attempts: 1,
    startedAt: step.startedAt,
    finishedAt: 1005,
  };
}
