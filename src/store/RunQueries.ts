import { ConfigurationError } from '../errors/ConfigurationError';
import { RunNotFoundError } from '../errors/RunNotFoundError';
import type { Codec } from './Codec';
import { numbered } from './statements';
import { toRunRow, type RunRow } from './rows';
import { RUN_STATUSES, type RunStatus } from './RunStatus';
import type { RunStore } from './RunStore';

/** One entry of a run's history, for people and tools. */
export interface StepRecord {
  seq: number;
  name: string;
  status: 'completed' | 'failed';
  attempts: number;
  startedAt: Date;
  finishedAt: Date | null;
  durationMs: number | null;
  /** For a failed step: what it threw. */
  error?: { name: string; message: string; code?: string };
}

/** A run as listed by {@link RunQueries.list}. */
export interface RunSummary {
  runId: string;
  workflow: string;
  version: string | null;
  status: RunStatus;
  owner: string | null;
  parentRunId: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** Filters of `runtime.list()`. */
export interface ListRunsOptions {
  status?: RunStatus | RunStatus[];
  workflow?: string;
  /** At most this many runs (default 50, at most 1000). */
  limit?: number;
  /** From a previous page's `nextCursor`. */
  cursor?: string;
}

/** One page of runs, newest first. */
export interface RunPage {
  runs: RunSummary[];
  /** Pass as `cursor` to get the next page; absent on the last page. */
  nextCursor?: string;
}

const SUMMARY_COLUMNS =
  'id, workflow, version, status, owner, parent_run_id, created_at, updated_at';

/** Read-only queries for operators: listing runs and reading a history. */
export class RunQueries {
  constructor(
    private readonly store: RunStore,
    private readonly codec: Codec,
  ) {}

  async history(runId: string): Promise<StepRecord[]> {
    const [run, steps] = await Promise.all([
      this.store.loadRun(runId),
      this.store.loadHistory(runId),
    ]);
    if (!run) throw new RunNotFoundError(runId);
    return steps.map((step) => {
      const record: StepRecord = {
        seq: step.seq,
        name: step.name,
        status: step.status,
        attempts: step.attempts,
        startedAt: new Date(step.startedAt),
        finishedAt: step.finishedAt === null ? null : new Date(step.finishedAt),
        durationMs: step.finishedAt === null ? null : step.finishedAt - step.startedAt,
      };
      if (step.status === 'failed')
        record.error = this.errorSummary(step.output, `step #${step.seq} error`);
      return record;
    });
  }

  async list(options: ListRunsOptions = {}): Promise<RunPage> {
    const limit = options.limit ?? 50;
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
      throw new ConfigurationError(
        `list(): limit must be an integer from 1 to 1000, got ${String(limit)}`,
      );
    }
    const where: string[] = [];
    const params: unknown[] = [];
    const statuses = options.status === undefined ? [] : ([] as RunStatus[]).concat(options.status);
    for (const status of statuses) {
      if (!RUN_STATUSES.includes(status)) {
        throw new ConfigurationError(
          `list(): unknown status "${String(status)}"; expected one of ${RUN_STATUSES.join(', ')}`,
        );
      }
    }
    if (statuses.length > 0) {
      where.push(`status IN (${statuses.map(() => '?').join(', ')})`);
      params.push(...statuses);
    }
    if (options.workflow !== undefined) {
      where.push('workflow = ?');
      params.push(options.workflow);
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
    const { records } = await this.store.exec(
      'list runs',
      numbered(sql, this.store.dialect === 'postgres'),
      params,
    );
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

  private errorSummary(output: string | null, path: string): StepRecord['error'] {
    try {
      const error = this.codec.decode(output ?? '', path) as {
        name?: unknown;
        message?: unknown;
        code?: unknown;
      };
      return {
        name: typeof error?.name === 'string' ? error.name : 'Error',
        message: typeof error?.message === 'string' ? error.message : JSON.stringify(error),
        ...(typeof error?.code === 'string' ? { code: error.code } : {}),
      };
    } catch (reason) {
      return { name: 'CorruptValueError', message: (reason as Error).message };
    }
  }
}

function summarize(row: RunRow): RunSummary {
  return {
    runId: row.id,
    workflow: row.workflow,
    version: row.version,
    status: row.status,
    owner: row.owner,
    parentRunId: row.parentRunId,
    createdAt: new Date(row.createdAt),
    updatedAt: new Date(row.updatedAt),
  };
}

function encodeCursor(row: RunRow): string {
  return Buffer.from(JSON.stringify([row.createdAt, row.id])).toString('base64url');
}

function decodeCursor(cursor: string): { createdAt: number; id: string } {
  try {
    const [createdAt, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as [
      number,
      string,
    ];
    if (typeof createdAt === 'number' && typeof id === 'string') return { createdAt, id };
  } catch {
    // fall through to the error below
  }
  throw new ConfigurationError(`list(): cursor "${cursor}" is not one returned by list()`);
}
