import type { RunStatus } from '../model/RunStatus';
import type { ErrorFields } from './errorFieldsSql';

/** A stored run, as the store reads and writes it. Times are epoch milliseconds. */
export interface RunRow {
  id: string;
  workflow: string;
  version: string | null;
  status: RunStatus;
  args: string;
  result: string | null;
  error: string | null;
  owner: string | null;
  epoch: number;
  /** When the lease ends, on the database server's clock; null when no one holds it. */
  leaseExpiresAt: number | null;
  /**
   * Whether the lease had lapsed by the server's clock when the row was read (false for a row
   * that was not read with `runColumns`, such as one just claimed).
   */
  leaseExpired: boolean;
  wakeAt: number | null;
  parentRunId: string | null;
  /** The step a `needs_attention` run is parked at, for `retry()` and `resolveStep()`. */
  parkedSeq: number | null;
  /** Why a `needs_attention` run was parked: the error's name and message, in plain text. */
  parkedReason: string | null;
  /** What a `waiting` run waits for: `signal:<name>`, `sleep`, `retry` or `start` (`at`). */
  waitingFor: string | null;
  /** For a fork: the run it was copied from, and the seq it diverges at. */
  forkedFrom: string | null;
  forkedSeq: number | null;
  /** Where the lease holder runs (see `LeaseHolder.host`); null when no one holds it. */
  leaseHost: string | null;
  /** Which process and runtime holds the lease (see `LeaseHolder.process`). */
  leaseProcess: string | null;
  /** Unique to the claim that holds the run now. */
  claimToken: string | null;
  /** The named queue (`runtime.queue`) the run waits in; null or absent for the default queue. */
  queueName?: string | null;
  /** When the run is cancelled if it has not ended (`@Workflow({ timeout })`, `deadline`). */
  deadlineAt: number | null;
  /** When a queued run is cancelled if no worker has started it. */
  startBy: number | null;
  createdAt: number;
  updatedAt: number;
}

/** What a new run row is given; every other column starts empty. */
export type NewRunFields = Pick<RunRow, 'id' | 'workflow' | 'version' | 'args' | 'createdAt'> &
  Partial<RunRow>;

/** A new run's row: `pending`, epoch 1, held by no one, unless `fields` say otherwise. */
export function newRunRowOf(fields: NewRunFields): RunRow {
  return {
    status: 'pending',
    result: null,
    error: null,
    owner: null,
    epoch: 1,
    leaseExpiresAt: null,
    leaseExpired: false,
    wakeAt: null,
    parentRunId: null,
    parkedSeq: null,
    parkedReason: null,
    waitingFor: null,
    forkedFrom: null,
    forkedSeq: null,
    leaseHost: null,
    leaseProcess: null,
    claimToken: null,
    deadlineAt: null,
    startBy: null,
    updatedAt: fields.createdAt,
    ...fields,
  };
}

/** How a history page row's value was read when it was read cut (see `readHistoryPage`). */
export interface ValueCut {
  /** Characters in the whole stored value; the row holds its start. */
  length: number;
  /** For a failed step or attempt read with bounded errors: the error's members, cut. */
  error?: ErrorFields;
}

/** Outcome of one step record; `started` is an at-most-once step's intent marker. */
export type StepStatus = 'completed' | 'failed' | 'started';

/** One stored step outcome: primary key `(runId, seq)`. */
export interface StepRow {
  runId: string;
  seq: number;
  name: string;
  status: StepStatus;
  /** The encoded result (completed) or error (failed). */
  output: string | null;
  attempts: number;
  startedAt: number;
  finishedAt: number | null;
  /** The key of a step with `@Idempotent({ key })`; null (or absent) for the default `runId:seq`. */
  idempotencyKey?: string | null;
  /** Set when `output` holds only the start of the stored value. */
  cut?: ValueCut;
}

/**
 * A failed attempt of a retried step (written only when an attempt fails), or a `reset`
 * marker from `retry()` that gives the step a fresh budget.
 */
export interface AttemptRow {
  runId: string;
  seq: number;
  attempt: number;
  /** The step's name, as its outcome row will carry it. */
  name: string;
  status: 'failed' | 'reset';
  /** The encoded error of a failed attempt. */
  error: string | null;
  failedAt: number;
  /** When the next attempt is due; null when none is scheduled (parked, or a reset). */
  nextAt: number | null;
  /** As {@link StepRow.idempotencyKey}. */
  idempotencyKey?: string | null;
  /** Set when `error` holds only the start of the stored error. */
  cut?: ValueCut;
}

type Raw = Record<string, unknown>;

const num = (value: unknown): number => Number(value);
const numOrNull = (value: unknown): number | null =>
  value === null || value === undefined ? null : Number(value);
const strOrNull = (value: unknown): string | null =>
  value === null || value === undefined
    ? null
    : typeof value === 'string'
      ? value
      : JSON.stringify(value);

/** Maps a database row (snake_case, bigint possibly as string) to a {@link RunRow}. */
export function toRunRow(raw: Raw): RunRow {
  return {
    id: String(raw.id),
    workflow: String(raw.workflow),
    version: strOrNull(raw.version),
    status: String(raw.status) as RunStatus,
    args: String(raw.args),
    result: strOrNull(raw.result),
    error: strOrNull(raw.error),
    owner: strOrNull(raw.owner),
    epoch: num(raw.epoch),
    leaseExpiresAt: numOrNull(raw.lease_expires_at),
    leaseExpired: Number(raw.lease_expired ?? 0) === 1,
    wakeAt: numOrNull(raw.wake_at),
    parentRunId: strOrNull(raw.parent_run_id),
    parkedSeq: numOrNull(raw.parked_seq),
    parkedReason: strOrNull(raw.parked_reason),
    waitingFor: strOrNull(raw.waiting_for),
    forkedFrom: strOrNull(raw.forked_from),
    forkedSeq: numOrNull(raw.forked_seq),
    leaseHost: strOrNull(raw.lease_host),
    leaseProcess: strOrNull(raw.lease_process),
    claimToken: strOrNull(raw.claim_token),
    queueName: strOrNull(raw.queue_name),
    deadlineAt: numOrNull(raw.deadline_at),
    startBy: numOrNull(raw.start_by),
    createdAt: num(raw.created_at),
    updatedAt: num(raw.updated_at),
  };
}

/** Maps a database row to a {@link StepRow}. */
export function toStepRow(runId: string, raw: Raw): StepRow {
  return {
    runId,
    seq: num(raw.seq),
    name: String(raw.name),
    status: String(raw.status) as StepStatus,
    output: strOrNull(raw.output),
    attempts: num(raw.attempts),
    startedAt: num(raw.started_at),
    finishedAt: numOrNull(raw.finished_at),
    idempotencyKey: strOrNull(raw.idempotency_key),
  };
}

/** Maps an attempt row of the history query (see `statements.selectHistory`). */
export function toAttemptRow(runId: string, raw: Raw): AttemptRow {
  return {
    runId,
    seq: num(raw.seq),
    attempt: num(raw.attempt),
    name: String(raw.name),
    status: String(raw.status) as AttemptRow['status'],
    error: strOrNull(raw.output),
    failedAt: num(raw.started_at),
    nextAt: numOrNull(raw.finished_at),
    idempotencyKey: strOrNull(raw.idempotency_key),
  };
}
