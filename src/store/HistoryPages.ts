import { InvalidArgumentError } from '../errors/InvalidArgumentError';
import { toAttemptRow, toStepRow, type AttemptRow, type StepRow, type ValueCut } from './rows';
import type { Database } from './connection/Database';
import { isInvalidJsonError } from './connection/Dialect';
import { errorFieldsOf, errorFieldsSql } from './errorFieldsSql';
import { prefixSql } from './valuePrefix';
import { valueCharsOption } from '../model/StoredValue';
import type { RunHistory } from './RunStore';
import {
  DEFAULT_HISTORY_PAGE,
  MAX_HISTORY_PAGE,
  MAX_SEQ,
  type HistoryPageOptions,
} from '../model/HistoryPage';

/** A validated page request. */
interface PageBounds {
  from: number;
  limit: number;
  desc: boolean;
  /** Where the values read are cut: outputs, and errors; `Infinity` reads them whole. */
  valueChars: number;
  errorChars: number;
}

/**
 * Reads one page of a run's history: the step outcomes and failed attempts of the first
 * `limit` sequence numbers from `from` that have either. Two bounded queries — the page's
 * sequence numbers (a keyset on `(run_id, seq)`, both tables), then their rows — whatever
 * the length of the history. Outputs (and, with `errorChars`, errors) are cut in the
 * database: the rows hold their start, and `cut` says how long they are.
 */
export async function readHistoryPage(
  db: Database,
  runId: string,
  options: HistoryPageOptions,
): Promise<RunHistory> {
  const bounds = pageBounds(options);
  try {
    return await readPage(db, runId, bounds);
  } catch (error) {
    // PostgreSQL cannot cast a value that is no JSON: such a page's errors are decoded whole.
    if (bounds.errorChars === Infinity || !isInvalidJsonError(error)) throw error;
    return readPage(db, runId, { ...bounds, errorChars: Infinity });
  }
}

async function readPage(db: Database, runId: string, bounds: PageBounds): Promise<RunHistory> {
  const { from, limit, desc, valueChars, errorChars } = bounds;
  const [cmp, dir] = desc ? ['<=', 'DESC'] : ['>=', 'ASC'];
  const seqsOf = (table: string, distinct: string): string =>
    `SELECT seq FROM (SELECT ${distinct}seq FROM ${table} WHERE run_id = ? AND seq ${cmp} ? ` +
    `ORDER BY seq ${dir} LIMIT ?)`;
  const { records: seqRows } = await db.exec(
    `read the history page of run "${runId}"`,
    db.sql(
      `${seqsOf('waymark_steps', '')} s UNION ${seqsOf('waymark_attempts', 'DISTINCT ')} a ` +
        `ORDER BY seq ${dir} LIMIT ?`,
    ),
    [runId, from, limit, runId, from, limit, limit],
  );
  const seqs = (seqRows as Array<{ seq: unknown }>).map((row) => Number(row.seq));
  const history: RunHistory = { steps: [], attempts: [] };
  if (seqs.length === 0) return history;
  const low = Math.min(...seqs);
  const high = Math.max(...seqs);
  const cutting = valueChars !== Infinity || errorChars !== Infinity;
  const values = (column: string): ValueColumns =>
    cutting
      ? valueColumns(db, column, valueChars, errorChars)
      : { columns: `${column} AS output`, join: '' };
  const [step, attempt] = [values('output'), values('error')];
  // Every seq in [low, high] with a row is one of `seqs`: they are the first `limit` of them.
  const { records } = await db.exec(
    `read the history page of run "${runId}"`,
    db.sql(
      `SELECT 'step' AS kind, seq, name, status, ${step.columns}, attempts, started_at, finished_at, ` +
        `idempotency_key, 0 AS attempt FROM waymark_steps ${step.join} ` +
        'WHERE run_id = ? AND seq >= ? AND seq <= ? ' +
        `UNION ALL SELECT 'attempt' AS kind, seq, name, status, ${attempt.columns}, 0 AS attempts, ` +
        'failed_at AS started_at, next_at AS finished_at, idempotency_key, attempt ' +
        `FROM waymark_attempts ${attempt.join} WHERE run_id = ? AND seq >= ? AND seq <= ? ` +
        'ORDER BY seq, attempt',
    ),
    [runId, low, high, runId, low, high],
  );
  for (const raw of records) {
    const row = raw.kind === 'step' ? toStepRow(runId, raw) : toAttemptRow(runId, raw);
    if (cutting) row.cut = valueCutOf(raw, errorChars);
    if (raw.kind === 'step') history.steps.push(row as StepRow);
    else history.attempts.push(row as AttemptRow);
  }
  return history;
}

/** A stored value's select list, and what the FROM clause joins for it. */
interface ValueColumns {
  columns: string;
  join: string;
}

/**
 * A stored value cut in the database: `output` (a completed step's result cut at
 * `valueChars`, an error at `errorChars`), `output_length`, and with bounded errors their
 * members (see {@link errorFieldsSql}).
 */
function valueColumns(
  db: Database,
  column: string,
  valueChars: number,
  errorChars: number,
): ValueColumns {
  const failed = "status = 'failed'";
  const value = prefixSql(db.dialect, column, valueChars);
  const error = prefixSql(db.dialect, column, errorChars);
  const columns =
    `CASE WHEN ${failed} THEN ${error.text} ELSE ${value.text} END AS output, ` +
    `${value.length} AS output_length`;
  if (errorChars === Infinity) return { columns, join: '' };
  const fields = errorFieldsSql(db.dialect, column, errorChars, 'error', failed);
  return { columns: `${columns}, ${fields.columns}`, join: fields.join };
}

function valueCutOf(raw: Record<string, unknown>, errorChars: number): ValueCut | undefined {
  if (raw.output === null || raw.output === undefined) return undefined;
  const length = Number(raw.output_length);
  return errorChars !== Infinity && raw.status === 'failed'
    ? { length, error: errorFieldsOf(raw, 'error') }
    : { length };
}

function pageBounds(options: HistoryPageOptions): PageBounds {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidArgumentError(
      'history(): page',
      'must be an object { from?, limit?, order? }',
    );
  }
  const { order = 'asc', limit = DEFAULT_HISTORY_PAGE } = options;
  if (order !== 'asc' && order !== 'desc') {
    throw new InvalidArgumentError(
      'history(): order',
      `must be 'asc' or 'desc', got ${String(order)}`,
    );
  }
  const desc = order === 'desc';
  const from = options.from ?? (desc ? MAX_SEQ : 0);
  if (!Number.isInteger(from) || from < 0 || from > MAX_SEQ) {
    throw new InvalidArgumentError(
      'history(): from',
      `must be a sequence number (a whole number from 0 to ${MAX_SEQ}), got ${String(from)}`,
    );
  }
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_HISTORY_PAGE) {
    throw new InvalidArgumentError(
      'history(): limit',
      `must be a whole number from 1 to ${MAX_HISTORY_PAGE}, got ${String(limit)}`,
    );
  }
  const valueChars = valueCharsOption(options.valueChars, 'history(): valueChars');
  const errorChars = valueCharsOption(options.errorChars, 'history(): errorChars', Infinity);
  return { from, limit, desc, valueChars, errorChars };
}
