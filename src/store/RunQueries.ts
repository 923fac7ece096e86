import { InvalidArgumentError } from '../errors/InvalidArgumentError';
import { RunNotFoundError } from '../errors/RunNotFoundError';
import { readHistoryPage } from './HistoryPages';
import { type HistoryPageOptions } from '../model/HistoryPage';
import { assertRunId, assertText, MAX_RUN_ID_LENGTH } from '../model/identifiers';
import { decodeCursor, encodeCursor } from './RunCursor';
import { toRunRow, type RunRow } from './rows';
import { RUN_STATUSES, type RunStatus } from '../model/RunStatus';
import type { ListRunsOptions, RunPage, RunSummary, StepRecord } from '../model/RunRecords';
import type { Database } from './connection/Database';
import type { RunHistory, RunStore } from './RunStore';
import { storedPrefix, storedValue, valueCharsOption } from '../model/StoredValue';
import type { StoredErrors } from './StoredErrors';

/** The columns of a run's summary: none of its stored values. */
export const SUMMARY_COLUMNS =
  'id, workflow, version, status, owner, parent_run_id, wake_at, parked_seq, parked_reason, waiting_for, forked_from, ' +
  'forked_seq, created_at, updated_at';

/** Read-only queries for operators: listing runs and reading a history. */
export class RunQueries {
  constructor(
    private readonly db: Database,
    private readonly runs: RunStore,
    private readonly errors: StoredErrors,
  ) {}

  /**
   * The run's steps in sequence order: recorded outcomes, and steps still being retried or
   * parked (their failed attempts stored, no outcome yet). Without `page`, the whole
   * history in one query; with it, one page (see {@link HistoryPageOptions}), in bounded
   * queries however long the history is.
   */
  async history(runId: string, page?: HistoryPageOptions): Promise<StepRecord[]> {
    assertRunId(runId, 'history(): runId');
    const [run, history] = await Promise.all([
      this.parkedSeqOf(runId),
      page === undefined ? this.runs.loadHistory(runId) : readHistoryPage(this.db, runId, page),
    ]);
    if (!run) throw new RunNotFoundError(runId);
    const valueChars = valueCharsOption(page?.valueChars, 'history(): valueChars');
    const errorChars = valueCharsOption(page?.errorChars, 'history(): errorChars', Infinity);
    const records = this.records(history, run.parkedSeq, valueChars, errorChars);
    return page?.order === 'desc' ? records.reverse() : records;
  }

  /** The run's parked step, of a row read without its stored values; undefined for no run. */
  private async parkedSeqOf(runId: string): Promise<{ parkedSeq: number | null } | undefined> {
    const { records } = await this.db.exec(
      `read run "${runId}"`,
      this.db.sql('SELECT parked_seq FROM waymark_runs WHERE id = ?'),
      [runId],
    );
    const [raw] = records;
    if (!raw) return undefined;
    return { parkedSeq: raw.parked_seq === null ? null : Number(raw.parked_seq) };
  }

  private records(
    history: RunHistory,
    parkedSeq: number | null,
    valueChars: number,
    errorChars: number,
  ): StepRecord[] {
    const records = new Map<number, StepRecord>();
    for (const step of history.steps) {
      const record: StepRecord = {
        seq: step.seq,
        name: step.name,
        status: step.status,
        attempts: step.attempts,
        startedAt: new Date(step.startedAt),
        finishedAt: step.finishedAt === null ? null : new Date(step.finishedAt),
        durationMs: step.finishedAt === null ? null : step.finishedAt - step.startedAt,
      };
      if (step.idempotencyKey) record.idempotencyKey = step.idempotencyKey;
      if (step.status === 'failed') {
        record.error = this.errors.errorOf(
          step.output,
          step.cut,
          errorChars,
          `step #${step.seq} error`,
        );
      } else if (step.status === 'completed' && step.output !== null) {
        record.output = step.cut
          ? storedPrefix(step.output, step.cut.length, valueChars)
          : storedValue(step.output, valueChars);
      }
      records.set(step.seq, record);
    }
    for (const attempt of history.attempts) {
      if (records.get(attempt.seq)?.finishedAt || attempt.status !== 'failed') continue;
      const previous = records.get(attempt.seq);
      records.set(attempt.seq, {
        seq: attempt.seq,
        name: attempt.name,
        status: parkedSeq === attempt.seq ? 'parked' : 'retrying',
        attempts: (previous?.attempts ?? 0) + 1,
        startedAt: previous?.startedAt ?? new Date(attempt.failedAt),
        finishedAt: null,
        durationMs: null,
        error: this.errors.errorOf(
          attempt.error,
          attempt.cut,
          errorChars,
          `attempt ${attempt.attempt} of step #${attempt.seq} error`,
        ),
        ...(attempt.nextAt === null ? {} : { nextAttemptAt: new Date(attempt.nextAt) }),
        ...(attempt.idempotencyKey ? { idempotencyKey: attempt.idempotencyKey } : {}),
      });
    }
    return [...records.values()].sort((a, b) => a.seq - b.seq);
  }

  async list(options: ListRunsOptions = {}): Promise<RunPage> {
    const limit = options.limit ?? 50;
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
      throw new InvalidArgumentError(
        'list(): limit',
        `must be an integer from 1 to 1000, got ${String(limit)}`,
      );
    }
    const where: string[] = [];
    const params: unknown[] = [];
    const statuses = options.status === undefined ? [] : ([] as RunStatus[]).concat(options.status);
    for (const status of statuses) {
      if (!RUN_STATUSES.includes(status)) {
        throw new InvalidArgumentError(
          'list(): status',
          `"${String(status)}" is unknown; expected one of ${RUN_STATUSES.join(', ')}`,
        );
      }
    }
    if (statuses.length > 0) {
      where.push(`status IN (${statuses.map(() => '?').join(', ')})`);
      params.push(...statuses);
    }
    if (options.workflow !== undefined) {
      assertText(options.workflow, 'list(): workflow', MAX_RUN_ID_LENGTH);
      where.push('workflow = ?');
      params.push(options.workflow);
    }
    if (options.waitingFor !== undefined) {
      where.push(waitingForCondition(options.waitingFor));
    }
    if (options.cursor !== undefined) {
      const { createdAt, id } = decodeCursor(options.cursor);
      where.push('(created_at < ? OR (created_at = ? AND id < ?))');
      params.push(createdAt, createdAt, id);
    }
    const sql =
      `SELECT ${SUMMARY_COLUMNS} FROM waymark_runs` +
      (where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '') +
      ' ORDER BY created_at DESC, id DESC LIMIT ?';
    params.push(limit + 1);
    const { records } = await this.db.exec('list runs', this.db.sql(sql), params);
    const rows = records.map((raw: Record<string, unknown>) =>
      toRunRow({ ...raw, args: '', result: null, error: null, epoch: 0 }),
    );
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      runs: page.map(summarize),
      ...(rows.length > limit && last ? { nextCursor: encodeCursor(last) } : {}),
    };
  }
}

/** The public summary of a stored run. */
export function summarize(row: RunRow): RunSummary {
  return {
    runId: row.id,
    workflow: row.workflow,
    version: row.version,
    status: row.status,
    owner: row.owner,
    parentRunId: row.parentRunId,
    wakeAt: row.wakeAt === null ? null : new Date(row.wakeAt),
    parkedSeq: row.parkedSeq,
    parkedReason: row.parkedReason,
    waitingFor: row.waitingFor,
    forkedFrom: row.forkedFrom,
    forkedSeq: row.forkedSeq,
    deadlineAt: row.deadlineAt === null ? null : new Date(row.deadlineAt),
    createdAt: new Date(row.createdAt),
    updatedAt: new Date(row.updatedAt),
  };
}

function waitingForCondition(waitingFor: unknown): string {
  switch (waitingFor) {
    case 'signal':
      return "status = 'waiting' AND waiting_for LIKE 'signal:%'";
    case 'sleep':
    case 'retry':
      return `status = 'waiting' AND waiting_for = '${waitingFor}'`;
    default:
      throw new InvalidArgumentError(
        'list(): waitingFor',
        `must be 'signal', 'sleep' or 'retry', got ${String(waitingFor)}`,
      );
  }
}
