import type { DialectName } from './connection/Dialect';
import { numbered } from './connection/placeholders';
import type { FencedFinish } from './FinishBatches';
import type { RunRow, StepRow } from './rows';
import { serverNowSql, serverTimeAfterSql } from './serverClock';

/** The columns a new run is inserted with, in the order of {@link runInsertParams}. */
export const INSERTED_RUN_COLUMNS =
  'id, workflow, version, status, args, result, error, owner, epoch, lease_expires_at, ' +
  'wake_at, parent_run_id, lease_host, lease_process, claim_token, created_at, updated_at, ' +
  'deadline_at, start_by, waiting_for';
/** Every stored column of a run row. */
const STORED_RUN_COLUMNS = `${INSERTED_RUN_COLUMNS}, parked_seq, parked_reason, forked_from, forked_seq, queue_name`;

/**
 * Every column of a run row, and `lease_expired`: whether its lease had lapsed by the server's
 * clock as it was read (1 or 0), the only judge of that (`leaseLapsed`).
 */
export function runColumns(dialect: DialectName): string {
  return (
    `${STORED_RUN_COLUMNS}, CASE WHEN lease_expires_at < ${serverNowSql(dialect)} ` +
    'THEN 1 ELSE 0 END AS lease_expired'
  );
}
const STEP_COLUMNS =
  'seq, name, status, output, attempts, started_at, finished_at, idempotency_key';

/**
 * MySQL/MariaDB's step insert, fenced by a foreign key instead of `INSERT … SELECT`, which
 * costs InnoDB about 12% more per step than a plain insert (bench/RESULTS.md). The row names
 * the run's `(id, epoch)` in `fence_run_id, fence_epoch`; every claim bumps the epoch, which
 * clears those columns of the rows written under the old one (`ON UPDATE SET NULL`, M0011),
 * so a process that lost the run fails the key check (1452) and inserts nothing. The check
 * share-locks the run's key until commit, as the `SELECT` did. Same parameters as the other
 * dialects' statement: `run_id` is copied from `fence_run_id`, set earlier in the row.
 */
const MYSQL_INSERT_STEP =
  'INSERT INTO waymark_steps (seq, name, status, output, attempts, started_at, finished_at, ' +
  'idempotency_key, fence_run_id, fence_epoch, run_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, fence_run_id)';

/** The hot path's statements on run rows: create, read, finish, suspend, park, check the lease. */
function runStatements(dialect: DialectName) {
  const pg = dialect === 'postgres';
  return {
    // The lease (tenth column) is given as a duration from now on the server's clock.
    insertRun: numbered(
      `INSERT INTO waymark_runs (${INSERTED_RUN_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ` +
        `${serverTimeAfterSql(dialect)}, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      pg,
    ),
    selectRun: numbered(`SELECT ${runColumns(dialect)} FROM waymark_runs WHERE id = ?`, pg),
    finishRun: numbered(
      `UPDATE waymark_runs SET status = ?, result = ?, error = ?, parked_reason = ?, owner = NULL, ` +
        `lease_expires_at = NULL, updated_at = ? WHERE id = ? AND epoch = ?`,
      pg,
    ),
    // Whether `epoch` still holds the run: asked only when a fenced insert found its seq taken.
    selectHeld: numbered('SELECT 1 AS held FROM waymark_runs WHERE id = ? AND epoch = ?', pg),
    // Releases the run until `wake_at`: no owner, no lease, nothing of it held in memory.
    suspendRun: numbered(
      "UPDATE waymark_runs SET status = 'waiting', wake_at = ?, waiting_for = ?, owner = NULL, " +
        'lease_expires_at = NULL, updated_at = ? WHERE id = ? AND epoch = ?',
      pg,
    ),
    parkRun: numbered(
      "UPDATE waymark_runs SET status = 'needs_attention', error = ?, parked_reason = ?, parked_seq = ?, " +
        'owner = NULL, ' +
        'lease_expires_at = NULL, updated_at = ? WHERE id = ? AND epoch = ?',
      pg,
    ),
  };
}

/**
 * The hot path's statements on step and attempt rows; every write is fenced by the run's
 * epoch (PostgreSQL needs types for the bare parameters of an `INSERT … SELECT`).
 */
function stepStatements(dialect: DialectName) {
  const pg = dialect === 'postgres';
  const typed = (type: string): string => (pg ? `?::${type}` : '?');
  // InnoDB already share-locks the rows an INSERT … SELECT reads; PostgreSQL must be asked.
  const lockShared = pg ? ' FOR SHARE' : '';
  return {
    // Steps and failed attempts in one query, so a resume costs one read for its history.
    selectHistory: numbered(
      `SELECT 'step' AS kind, ${STEP_COLUMNS}, 0 AS attempt FROM waymark_steps WHERE run_id = ? ` +
        "UNION ALL SELECT 'attempt' AS kind, seq, name, status, error AS output, 0 AS attempts, " +
        'failed_at AS started_at, next_at AS finished_at, idempotency_key, attempt ' +
        'FROM waymark_attempts WHERE run_id = ? ' +
        'ORDER BY seq, attempt',
      pg,
    ),
    selectStep: numbered(
      `SELECT ${STEP_COLUMNS} FROM waymark_steps WHERE run_id = ? AND seq = ?`,
      pg,
    ),
    // The epoch condition fences a process that lost the run: its write inserts nothing.
    insertStep:
      dialect === 'mysql'
        ? MYSQL_INSERT_STEP
        : numbered(
            'INSERT INTO waymark_steps (run_id, seq, name, status, output, attempts, started_at, finished_at, ' +
              'idempotency_key) ' +
              `SELECT id, ${typed('integer')}, ${typed('varchar')}, ${typed('varchar')}, ${typed('text')}, ` +
              `${typed('integer')}, ${typed('bigint')}, ${typed('bigint')}, ${typed('text')} ` +
              `FROM waymark_runs WHERE id = ? AND epoch = ?${lockShared}`,
            pg,
          ),
    insertAttempt: numbered(
      'INSERT INTO waymark_attempts (run_id, seq, attempt, name, status, error, failed_at, next_at, ' +
        'idempotency_key) ' +
        `SELECT id, ${typed('integer')}, ${typed('integer')}, ${typed('varchar')}, ${typed('varchar')}, ${typed('text')}, ` +
        `${typed('bigint')}, ${typed('bigint')}, ${typed('text')} FROM waymark_runs WHERE id = ? AND epoch = ?${lockShared}`,
      pg,
    ),
    // Records how an at-most-once step ended, over its intent marker; fenced like an insert.
    completeIntent: numbered(
      'UPDATE waymark_steps SET status = ?, output = ?, attempts = ?, finished_at = ? ' +
        "WHERE run_id = ? AND seq = ? AND status = 'started' " +
        'AND EXISTS (SELECT 1 FROM waymark_runs WHERE id = ? AND epoch = ?)',
      pg,
    ),
  };
}

/** SQL statements for one dialect. */
export type Statements = ReturnType<typeof runStatements> & ReturnType<typeof stepStatements>;

const built = new Map<DialectName, Statements>();

/**
 * Every SQL statement on the hot path, written once with `?` placeholders and adapted to
 * the dialect; built once per dialect (a repository bound to a transaction reuses them).
 */
export function statementsFor(dialect: DialectName): Statements {
  let statements = built.get(dialect);
  if (!statements) {
    statements = { ...runStatements(dialect), ...stepStatements(dialect) };
    built.set(dialect, statements);
  }
  return statements;
}

/**
 * The values of {@link INSERTED_RUN_COLUMNS} for `row`, in order, with the lease as `leaseMs`:
 * how long from now on the server's clock the new run is leased to its holder (null for none).
 */
export function runInsertParams(row: RunRow, leaseMs: number | null): unknown[] {
  return [
    row.id,
    row.workflow,
    row.version,
    row.status,
    row.args,
    row.result,
    row.error,
    row.owner,
    row.epoch,
    leaseMs,
    row.wakeAt,
    row.parentRunId,
    row.leaseHost,
    row.leaseProcess,
    row.claimToken,
    row.createdAt,
    row.updatedAt,
    row.deadlineAt,
    row.startBy,
    row.waitingFor,
  ];
}

/**
 * Parameters of the step insert (`insertStep`, every dialect), in order: the row's columns,
 * then the fence — the run's id and the epoch that must still hold it.
 */
export function stepInsertParams(step: StepRow, epoch: number): unknown[] {
  return appendStepInsertParams([], step, epoch);
}

/** Appends {@link stepInsertParams} to `params` (a multi-row insert's, without a copy per row). */
export function appendStepInsertParams(params: unknown[], step: StepRow, epoch: number): unknown[] {
  params.push(
    step.seq,
    step.name,
    step.status,
    step.output,
    step.attempts,
    step.startedAt,
    step.finishedAt,
    step.idempotencyKey ?? null,
    step.runId,
    epoch,
  );
  return params;
}

/**
 * A statement's text for `count` rows, made once per count: a multi-row statement is sent as
 * the same string each time, so the driver's cache of prepared statements finds it by a hash
 * computed once, not over a new string for every batch.
 */
export function byRowCount(build: (count: number) => string): (count: number) => string {
  const made = new Map<number, string>();
  return (count) => {
    let sql = made.get(count);
    if (sql === undefined) made.set(count, (sql = build(count)));
    return sql;
  };
}

/** Parameters of the one-run ending (`finishRun`, every dialect), in order; the fence last. */
export function finishRunParams({ runId, epoch, finish, now }: FencedFinish): unknown[] {
  return [finish.status, finish.result, finish.error, finish.parkedReason, now, runId, epoch];
}
