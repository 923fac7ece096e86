import type { StepRow, StepStatus } from '../../store/rows';

/** Everything a step record holds; every field named, none left out. */
export interface StepRowFields {
  readonly runId: string;
  readonly seq: number;
  readonly name: string;
  readonly status: StepStatus;
  readonly output: string | null;
  readonly attempts: number;
  readonly startedAt: number;
  readonly finishedAt: number | null;
  /** The step's own key (`@Idempotent({ key })`); null for the default `runId:seq`. */
  readonly idempotencyKey: string | null;
}

/**
 * The one place a step row is made. Written out whole, never spread: one object shape for
 * every row keeps the step path's property accesses monomorphic (spread rows cost a step 38k
 * more instructions on MariaDB and PostgreSQL, bench/instructions.sh).
 */
export function stepRow(f: StepRowFields): StepRow {
  return {
    runId: f.runId,
    seq: f.seq,
    name: f.name,
    status: f.status,
    output: f.output,
    attempts: f.attempts,
    startedAt: f.startedAt,
    finishedAt: f.finishedAt,
    idempotencyKey: f.idempotencyKey,
  };
}

/** How a `started` record (an intent marker, a wait) ended: the same row with its outcome. */
export function endedRow(
  started: StepRow,
  status: StepStatus,
  output: string | null,
  finishedAt: number,
): StepRow {
  return stepRow({
    ...{ runId: started.runId, seq: started.seq, name: started.name, status, output },
    ...{ attempts: started.attempts, startedAt: started.startedAt, finishedAt },
    idempotencyKey: started.idempotencyKey ?? null,
  });
}
