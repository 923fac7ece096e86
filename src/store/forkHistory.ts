import { InvalidArgumentError } from '../errors/InvalidArgumentError';

/** A statement inside the transaction of an operator action. */
export type TransactionSql = (text: string, params: unknown[]) => Promise<unknown>;

/** Copies run `runId`'s step outcomes and failed attempts before `fromSeq` into `newRunId`. */
export async function copyHistoryBefore(
  sql: TransactionSql,
  runId: string,
  newRunId: string,
  fromSeq: number,
): Promise<void> {
  await sql(
    'INSERT INTO waymark_steps (run_id, seq, name, status, output, attempts, started_at, finished_at, ' +
      'idempotency_key) SELECT ?, seq, name, status, output, attempts, started_at, finished_at, ' +
      'idempotency_key FROM waymark_steps ' +
      "WHERE run_id = ? AND seq < ? AND status <> 'started'",
    [newRunId, runId, fromSeq],
  );
  await sql(
    'INSERT INTO waymark_attempts (run_id, seq, attempt, name, status, error, failed_at, next_at, ' +
      'idempotency_key) SELECT ?, seq, attempt, name, status, error, failed_at, next_at, idempotency_key ' +
      'FROM waymark_attempts WHERE run_id = ? AND seq < ?',
    [newRunId, runId, fromSeq],
  );
}

/**
 * Records `output` as the completed outcome of the copy's step `seq`, named as the
 * original's step there (a replay's override); refused if the original recorded none.
 */
export async function overrideStep(
  sql: TransactionSql,
  runId: string,
  newRunId: string,
  seq: number,
  output: string,
): Promise<void> {
  const [original] = (await sql(
    'SELECT name, started_at, finished_at FROM waymark_steps ' +
      "WHERE run_id = ? AND seq = ? AND status <> 'started'",
    [runId, seq],
  )) as Array<Record<string, unknown>>;
  if (!original) {
    throw new InvalidArgumentError(
      `replay(): override[${seq}]`,
      `names no step: run "${runId}" recorded none at #${seq}`,
    );
  }
  await sql('DELETE FROM waymark_steps WHERE run_id = ? AND seq = ?', [newRunId, seq]);
  await sql(
    'INSERT INTO waymark_steps (run_id, seq, name, status, output, attempts, started_at, finished_at) ' +
      "VALUES (?, ?, ?, 'completed', ?, 1, ?, ?)",
    [newRunId, seq, original.name, output, original.started_at, original.finished_at],
  );
}
