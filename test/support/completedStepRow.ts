import type { StepRow } from '../../src/store/rows';

/** Step `seq` of run `runId`, completed now with `output`: a checkpoint as the step path writes it. */
export function completedStepRow(runId: string, seq: number, output: string): StepRow {
  const now = Date.now();
  return {
    runId,
    seq,
    name: `step-${seq}`,
    status: 'completed',
    output,
    attempts: 1,
    startedAt: now,
    finishedAt: now,
  };
}
