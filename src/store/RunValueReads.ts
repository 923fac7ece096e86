import { RunNotFoundError } from '../errors/RunNotFoundError';
import type { RunSummary, StoredOutcome, WholeValueOf } from '../model/RunRecords';
import { isTerminalStatus, type RunStatus } from '../model/RunStatus';
import { storedPrefix } from '../model/StoredValue';
import type { Database } from './connection/Database';
import { isInvalidJsonError } from './connection/Dialect';
import { errorFieldsOf, errorFieldsSql, type ErrorFields } from './errorFieldsSql';
import { toRunRow, type ValueCut } from './rows';
import { summarize, SUMMARY_COLUMNS } from './RunQueries';
import type { StoredErrors } from './StoredErrors';
import { prefixSql } from './valuePrefix';

/**
 * A run's stored values as people and tools read them: cut in the database (its arguments,
 * its outcome), or one of them whole on demand.
 */
export class RunValueReads {
  constructor(
    private readonly db: Database,
    private readonly errors: StoredErrors,
  ) {}

  /** The run as stored, with its arguments cut in the database at `valueChars`. */
  async describe(runId: string, valueChars: number): Promise<RunSummary> {
    const args = prefixSql(this.db.dialect, 'args', valueChars);
    const { records } = await this.db.exec(
      `describe run "${runId}"`,
      this.db.sql(
        `SELECT ${SUMMARY_COLUMNS}, deadline_at, ${args.text} AS args, ${args.length} AS args_length ` +
          'FROM waymark_runs WHERE id = ?',
      ),
      [runId],
    );
    const [raw] = records;
    if (!raw) throw new RunNotFoundError(runId);
    const row = toRunRow({ ...raw, result: null, error: null, epoch: 0 });
    return { ...summarize(row), args: storedPrefix(row.args, Number(raw.args_length), valueChars) };
  }

  /**
   * How an ended run ended, read cut in the database: its result cut at `valueChars`, or
   * its error's name, message and code each cut there; null while the run has not ended.
   */
  async outcome(runId: string, valueChars: number): Promise<StoredOutcome | null> {
    try {
      return await this.readOutcome(runId, valueChars, true);
    } catch (error) {
      // PostgreSQL cannot cast an error that is no JSON: it is shown as its text.
      if (!isInvalidJsonError(error)) throw error;
      return this.readOutcome(runId, valueChars, false);
    }
  }

  private async readOutcome(
    runId: string,
    chars: number,
    withFields: boolean,
  ): Promise<StoredOutcome | null> {
    const { dialect } = this.db;
    const result = prefixSql(dialect, 'result', chars);
    const error = prefixSql(dialect, 'error', chars);
    const fields = withFields
      ? errorFieldsSql(dialect, 'error', chars, 'error')
      : { columns: '', join: '' };
    const { records } = await this.db.exec(
      `read the outcome of run "${runId}"`,
      this.db.sql(
        `SELECT status, ${result.text} AS result, ${result.length} AS result_length, ` +
          `${error.text} AS error, ${error.length} AS error_length` +
          `${fields.columns ? `, ${fields.columns}` : ''} FROM waymark_runs ${fields.join} WHERE id = ?`,
      ),
      [runId],
    );
    const [raw] = records;
    if (!raw) throw new RunNotFoundError(runId);
    if (!isTerminalStatus(raw.status as RunStatus)) return null;
    if (raw.status === 'completed') {
      const text = raw.result === null ? 'null' : textOf(raw.result);
      return { result: storedPrefix(text, Number(raw.result_length ?? 4), chars) };
    }
    const text = raw.error === null ? 'null' : textOf(raw.error);
    const length = Number(raw.error_length ?? 4);
    const cut: ValueCut = {
      length,
      error: withFields ? errorFieldsOf(raw, 'error') : emptyFields(),
    };
    return { error: this.errors.errorOf(text, cut, chars, 'error'), length };
  }

  /**
   * One stored value whole, as the codec's JSON text: the run's arguments, its outcome (its
   * result, or the error it ended with), or a step's output; null when there is none.
   */
  async wholeValue(runId: string, of: WholeValueOf): Promise<string | null> {
    const [operation, sql, params] =
      of === 'args'
        ? ['read arguments', 'SELECT args AS value FROM waymark_runs WHERE id = ?', [runId]]
        : of === 'outcome'
          ? [
              'read the outcome',
              "SELECT CASE WHEN status = 'completed' THEN result WHEN status IN ('failed', 'cancelled') " +
                'THEN error END AS value FROM waymark_runs WHERE id = ?',
              [runId],
            ]
          : [
              `read the output of step #${of.stepSeq}`,
              'SELECT r.id, s.output AS value FROM waymark_runs r LEFT JOIN waymark_steps s ' +
                'ON s.run_id = r.id AND s.seq = ? WHERE r.id = ?',
              [of.stepSeq, runId],
            ];
    const { records } = await this.db.exec(
      `${operation} of run "${runId}"`,
      this.db.sql(sql),
      params,
    );
    const [raw] = records;
    if (!raw) throw new RunNotFoundError(runId);
    return raw.value === null || raw.value === undefined ? null : textOf(raw.value);
  }
}

function emptyFields(): ErrorFields {
  return { name: null, message: null, code: null };
}

/** A text column as read (drivers give strings; anything else is shown as its JSON). */
function textOf(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
