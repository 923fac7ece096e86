import type { DataSource } from 'typeorm';

/** What {@link seedHistory} writes for one run. */
export interface SeededHistory {
  runId: string;
  /** Completed steps with seq 0 to `steps - 1` (at most 1,000,000), outputs of about `outputBytes`. */
  steps: number;
  outputBytes?: number;
  /** Seqs stored as failed outcomes, with `error` (an encoded error) as their output. */
  failed?: number[];
  /** Encoded error of the failed steps and attempts. */
  error?: string;
  /** Seqs with failed attempts only (a step being retried): no outcome row. */
  retrying?: number[];
  /** Seqs whose completed outcome came after two failed attempts. */
  retried?: number[];
  /** The run's status; `waiting` runs also get `waitingFor`. */
  status?: 'completed' | 'waiting' | 'failed';
  waitingFor?: string;
}

type Dialect = 'sqlite' | 'mysql' | 'postgres';

const T0 = Date.UTC(2026, 0, 1);

function dialectOf(dataSource: DataSource): Dialect {
  const type = dataSource.options.type;
  if (type === 'better-sqlite3') return 'sqlite';
  return type === 'postgres' ? 'postgres' : 'mysql';
}

function placeholders(dialect: Dialect, sql: string): string {
  let n = 0;
  return dialect === 'postgres' ? sql.replace(/\?/g, () => `$${++n}`) : sql;
}

/**
 * Writes a run and its history straight into waymark's tables with a few SQL statements —
 * the database generates the step rows — so a test can have 200,000 steps in seconds
 * instead of executing them.
 */
export async function seedHistory(dataSource: DataSource, seed: SeededHistory): Promise<void> {
  const dialect = dialectOf(dataSource);
  const q = (sql: string, params: unknown[]): Promise<unknown> =>
    dataSource.query(placeholders(dialect, sql), params);
  const status = seed.status ?? 'completed';
  await q(
    'INSERT INTO waymark_runs (id, workflow, version, status, args, result, error, owner, epoch, ' +
      'lease_expires_at, wake_at, parent_run_id, created_at, updated_at, waiting_for) ' +
      'VALUES (?, ?, NULL, ?, ?, ?, NULL, NULL, 1, NULL, NULL, NULL, ?, ?, ?)',
    [
      seed.runId,
      'seeded-history',
      status,
      '[]',
      status === 'completed' ? '"done"' : null,
      T0,
      T0 + seed.steps * 10 + 10,
      status === 'waiting' ? (seed.waitingFor ?? 'sleep') : null,
    ],
  );
  const last = seed.steps - 1;
  const filler = Math.max(0, (seed.outputBytes ?? 10) - 2);
  const output = {
    sqlite: `'"' || substr(hex(zeroblob(${filler})), 1, ${filler}) || '"'`,
    mysql: `CONCAT('"', REPEAT('x', ${filler}), '"')`,
    postgres: `'"' || repeat('x', ${filler}) || '"'`,
  }[dialect];
  // MariaDB stops a recursive CTE at 1,000 iterations: square a 0–999 one instead.
  const numbers =
    dialect === 'postgres'
      ? ''
      : 'WITH RECURSIVE d(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM d WHERE n < 999), ' +
        'g(n) AS (SELECT a.n * 1000 + b.n FROM d a CROSS JOIN d b) ';
  const from = dialect === 'postgres' ? `generate_series(0, ${last}) AS g(n)` : 'g';
  const skipped = [...(seed.retrying ?? [])];
  const where =
    (dialect === 'postgres' ? ' WHERE TRUE' : ` WHERE n <= ${last}`) +
    (skipped.length > 0 ? ` AND n NOT IN (${skipped.join(', ')})` : '');
  const retried = new Set(seed.retried ?? []);
  await q(
    'INSERT INTO waymark_steps (run_id, seq, name, status, output, attempts, started_at, finished_at) ' +
      `${numbers}SELECT ?, n, 'step', 'completed', ${output}, 1, ${T0} + n * 10, ${T0} + n * 10 + 5 FROM ${from}${where}`,
    [seed.runId],
  );
  const error = seed.error ?? '{"$wm":"Error","name":"Error","message":"boom"}';
  for (const seq of seed.failed ?? []) {
    await q("UPDATE waymark_steps SET status = 'failed', output = ? WHERE run_id = ? AND seq = ?", [
      error,
      seed.runId,
      seq,
    ]);
  }
  for (const seq of retried) {
    await q('UPDATE waymark_steps SET attempts = 3 WHERE run_id = ? AND seq = ?', [
      seed.runId,
      seq,
    ]);
  }
  const attempts: Array<[number, number, number | null]> = [
    ...[...retried].flatMap((seq): Array<[number, number, number | null]> => [
      [seq, 1, T0 + seq * 10 + 1],
      [seq, 2, T0 + seq * 10 + 2],
    ]),
    ...(seed.retrying ?? []).map((seq): [number, number, number | null] => [
      seq,
      1,
      T0 + 99_999_999,
    ]),
  ];
  for (const [seq, attempt, nextAt] of attempts) {
    await q(
      'INSERT INTO waymark_attempts (run_id, seq, attempt, name, status, error, failed_at, next_at) ' +
        "VALUES (?, ?, ?, 'step', 'failed', ?, ?, ?)",
      [seed.runId, seq, attempt, error, T0 + seq * 10, nextAt],
    );
  }
}
