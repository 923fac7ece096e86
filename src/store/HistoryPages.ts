import { InvalidArgumentError } from '../errors/InvalidArgumentError';
import { toAttemptRow, toStepRow } from './rows';
import type { Database } from './connection/Database';
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
}

/**
 * Reads one page of a run's history: the step outcomes and failed attempts of the first
 * `limit` sequence numbers from `from` that have either. Two bounded queries — the page's
 * sequence numbers (a keyset on `(run_id, seq)`, both tables), then their rows — whatever
 * the length of the history.
 */
export async function readHistoryPage(
  db: Database,
  runId: string,
  options: HistoryPageOptions,
): Promise<RunHistory> {
  const { from, limit, desc } = pageBounds(options);
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
  // Every seq in [low, high] with a row is one of `seqs`: they are the first `limit` of them.
  const { records } = await db.exec(
    `read the history page of run "${runId}"`,
    db.sql(
      "SELECT 'step' AS kind, seq, name, status, output, attempts, started_at, finished_at, idempotency_key, " +
        '0 AS attempt ' +
        'FROM waymark_steps WHERE run_id = ? AND seq >= ? AND seq <= ? ' +
        "UNION ALL SELECT 'attempt' AS kind, seq, name, status, error AS output, 0 AS attempts, " +
        'failed_at AS started_at, next_at AS finished_at, idempotency_key, attempt FROM waymark_attempts ' +
        'WHERE run_id = ? AND seq >= ? AND seq <= ? ORDER BY seq, attempt',
    ),
    [runId, low, high, runId, low, high],
  );
  for (const raw of records) {
    if (raw.kind === 'step') history.steps.push(toStepRow(runId, raw));
    else history.attempts.push(toAttemptRow(runId, raw));
  }
  return history;
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
  return { from, limit, desc };
}
