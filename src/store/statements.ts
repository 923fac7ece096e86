import type { DialectName } from './Dialect';

const INSERTED_RUN_COLUMNS =
  'id, workflow, version, status, args, result, error, owner, epoch, lease_expires_at, ' +
  'wake_at, parent_run_id, created_at, updated_at';
const RUN_COLUMNS = `${INSERTED_RUN_COLUMNS}, parked_seq, waiting_for, forked_from, forked_seq`;
const STEP_COLUMNS = 'seq, name, status, output, attempts, started_at, finished_at';

/**
 * Every SQL statement on the hot path, written once with `?` placeholders and adapted to
 * the dialect (PostgreSQL numbers its placeholders and needs types for bare parameters).
 */
export function statementsFor(dialect: DialectName) {
  const pg = dialect === 'postgres';
  const typed = (type: string): string => (pg ? `?::${type}` : '?');
  // InnoDB already share-locks the rows an INSERT … SELECT reads; PostgreSQL must be asked.
  const lockShared = pg ? ' FOR SHARE' : '';
  return {
    insertRun: numbered(
      `INSERT INTO waymark_runs (${INSERTED_RUN_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      pg,
    ),
    selectRun: numbered(`SELECT ${RUN_COLUMNS} FROM waymark_runs WHERE id = ?`, pg),
    claimRun: numbered(
      `UPDATE waymark_runs SET status = 'running', owner = ?, epoch = epoch + 1, ` +
        `lease_expires_at = ?, wake_at = NULL, waiting_for = NULL, updated_at = ? WHERE id = ? AND epoch = ?`,
      pg,
    ),
    finishRun: numbered(
      `UPDATE waymark_runs SET status = ?, result = ?, error = ?, owner = NULL, ` +
        `lease_expires_at = NULL, updated_at = ? WHERE id = ? AND epoch = ?`,
      pg,
    ),
    // Steps and failed attempts in one query, so a resume costs one read for its history.
    selectHistory: numbered(
      `SELECT 'step' AS kind, ${STEP_COLUMNS}, 0 AS attempt FROM waymark_steps WHERE run_id = ? ` +
        "UNION ALL SELECT 'attempt' AS kind, seq, name, status, error AS output, 0 AS attempts, " +
        'failed_at AS started_at, next_at AS finished_at, attempt FROM waymark_attempts WHERE run_id = ? ' +
        'ORDER BY seq, attempt',
      pg,
    ),
    selectStep: numbered(
      `SELECT ${STEP_COLUMNS} FROM waymark_steps WHERE run_id = ? AND seq = ?`,
      pg,
    ),
    // The epoch condition fences a process that lost the run: its write inserts nothing.
    insertStep: numbered(
      'INSERT INTO waymark_steps (run_id, seq, name, status, output, attempts, started_at, finished_at) ' +
        `SELECT id, ${typed('integer')}, ${typed('varchar')}, ${typed('varchar')}, ${typed('text')}, ` +
        `${typed('integer')}, ${typed('bigint')}, ${typed('bigint')} ` +
        `FROM waymark_runs WHERE id = ? AND epoch = ?${lockShared}`,
      pg,
    ),
    insertAttempt: numbered(
      'INSERT INTO waymark_attempts (run_id, seq, attempt, name, status, error, failed_at, next_at) ' +
        `SELECT id, ${typed('integer')}, ${typed('integer')}, ${typed('varchar')}, ${typed('varchar')}, ${typed('text')}, ` +
        `${typed('bigint')}, ${typed('bigint')} FROM waymark_runs WHERE id = ? AND epoch = ?${lockShared}`,
      pg,
    ),
    // Records how an at-most-once step ended, over its intent marker; fenced like an insert.
    completeIntent: numbered(
      'UPDATE waymark_steps SET status = ?, output = ?, attempts = ?, finished_at = ? ' +
        "WHERE run_id = ? AND seq = ? AND status = 'started' " +
        'AND EXISTS (SELECT 1 FROM waymark_runs WHERE id = ? AND epoch = ?)',
      pg,
    ),
    insertKey: numbered(
      'INSERT INTO waymark_idempotency_keys (idempotency_key, run_id, seq, status, output, created_at, updated_at) ' +
        "VALUES (?, ?, ?, 'started', NULL, ?, ?)",
      pg,
    ),
    selectKey: numbered(
      'SELECT idempotency_key, run_id, seq, status, output, updated_at FROM waymark_idempotency_keys ' +
        'WHERE idempotency_key = ?',
      pg,
    ),
    takeOverKey: numbered(
      'UPDATE waymark_idempotency_keys SET run_id = ?, seq = ?, updated_at = ? ' +
        "WHERE idempotency_key = ? AND run_id = ? AND seq = ? AND status = 'started'",
      pg,
    ),
    completeKey: numbered(
      "UPDATE waymark_idempotency_keys SET status = 'completed', output = ?, updated_at = ? " +
        'WHERE idempotency_key = ? AND run_id = ? AND seq = ?',
      pg,
    ),
    releaseKey: numbered(
      'DELETE FROM waymark_idempotency_keys ' +
        "WHERE idempotency_key = ? AND run_id = ? AND seq = ? AND status = 'started'",
      pg,
    ),
    renewLeases: (count: number) =>
      numbered(
        'UPDATE waymark_runs SET lease_expires_at = ?, updated_at = ? ' +
          `WHERE owner = ? AND status = 'running' AND id IN (${Array(count).fill('?').join(', ')})`,
        pg,
      ),
    // Releases the run until `wake_at`: no owner, no lease, nothing of it held in memory.
    suspendRun: numbered(
      "UPDATE waymark_runs SET status = 'waiting', wake_at = ?, waiting_for = ?, owner = NULL, " +
        'lease_expires_at = NULL, updated_at = ? WHERE id = ? AND epoch = ?',
      pg,
    ),
    parkRun: numbered(
      "UPDATE waymark_runs SET status = 'needs_attention', error = ?, parked_seq = ?, owner = NULL, " +
        'lease_expires_at = NULL, updated_at = ? WHERE id = ? AND epoch = ?',
      pg,
    ),
    // Abandoned (lease lapsed, or owned by this worker id in a previous life) or due.
    selectRecoverable: numbered(
      `SELECT ${RUN_COLUMNS} FROM waymark_runs WHERE (status = 'running' AND ` +
        '(lease_expires_at < ? OR owner = ?)) OR (status = ? AND wake_at <= ?) ORDER BY created_at LIMIT ?',
      pg,
    ),
  };
}

/** SQL statements for one dialect. */
export type Statements = ReturnType<typeof statementsFor>;

/** Rewrites `?` placeholders as `$1, $2, …` for PostgreSQL. */
export function numbered(sql: string, pg: boolean): string {
  if (!pg) return sql;
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}
