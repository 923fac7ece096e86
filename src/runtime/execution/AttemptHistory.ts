import { summarizeAttempt, type AttemptSummary } from '../../errors/RetriesExhaustedError';
import type { AttemptRow } from '../../store/rows';

/** Where a step's retries stand, as replayed from its stored attempts. */
export interface AttemptHistory {
  /** Attempts counted against the budget (a `reset` from `retry()` starts it again). */
  readonly budgetUsed: number;
  readonly summaries: readonly AttemptSummary[];
  readonly lastError: unknown;
  /** When the next attempt is due, if a stored failure scheduled one. */
  readonly nextAt: number | undefined;
  /** The number the next stored attempt row takes (never reused, across resets). */
  readonly nextNumber: number;
}

/** Replays stored attempt rows into where the retry loop stands. Pure. */
export function replayAttempts(
  rows: readonly AttemptRow[],
  decodeError: (row: AttemptRow) => unknown,
): AttemptHistory {
  let budgetUsed = 0;
  let summaries: AttemptSummary[] = [];
  let lastError: unknown;
  let nextAt: number | undefined;
  for (const row of rows) {
    if (row.status === 'reset') {
      budgetUsed = 0;
      summaries = [];
      nextAt = undefined;
      continue;
    }
    budgetUsed++;
    lastError = decodeError(row);
    summaries.push(summarizeAttempt(budgetUsed, lastError));
    nextAt = row.nextAt ?? undefined;
  }
  const nextNumber = (rows[rows.length - 1]?.attempt ?? 0) + 1;
  return { budgetUsed, summaries, lastError, nextAt, nextNumber };
}
