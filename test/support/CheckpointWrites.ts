import type { DataSourceOptions, Logger as TypeOrmLogger } from 'typeorm';
import { dataSourceOptionsFromUrl } from 'waymark';

/** One write of checkpoint rows as it was sent: a statement, or on SQLite a transaction. */
export interface CheckpointWrite {
  /** The run of each row it carried, in the order sent. */
  readonly runIds: string[];
}

/** How group commit went, in figures a child process can print as one line of JSON. */
export interface CheckpointFigures {
  /** Writes of checkpoint rows sent (each is one commit when it succeeds). */
  readonly writes: number;
  /** Checkpoint rows those writes carried. */
  readonly rows: number;
  /** Rows in the largest write. */
  readonly largest: number;
}

const STEP_INSERT = /^INSERT INTO waymark_steps\b/i;
/** Every row of a checkpoint insert has ten parameters; the ninth is its run id. */
const PARAMS_PER_ROW = 10;
const RUN_ID_PARAM = 8;

/**
 * A TypeORM logger that sees every statement waymark sends (the direct driver logs through
 * it too) and keeps the writes of checkpoint rows: PostgreSQL's batch carries its run ids in
 * its first array, MySQL's multi-row insert ten parameters per row, and on SQLite a batch is
 * the inserts between one BEGIN and its COMMIT. So a test can tell a group commit from rows
 * committed one by one. It records what was sent, not what committed.
 */
export class CheckpointWrites implements TypeOrmLogger {
  readonly writes: CheckpointWrite[] = [];
  private transaction: string[] | undefined;

  private constructor(private readonly sqlite: boolean) {}

  /** A counter for the database at `url`, and the options that open it with the counter. */
  static forUrl(url: string): { writes: CheckpointWrites; database: DataSourceOptions } {
    const writes = new CheckpointWrites(url.startsWith('sqlite:'));
    const database = { ...dataSourceOptionsFromUrl(url), logging: ['query'], logger: writes };
    return { writes, database: database as DataSourceOptions };
  }

  logQuery(query: string, parameters?: unknown[]): void {
    const sql = query.trim();
    if (this.sqlite && /^BEGIN\b/i.test(sql)) this.transaction = [];
    else if (this.sqlite && /^(COMMIT|ROLLBACK)\b/i.test(sql)) this.endTransaction();
    else if (STEP_INSERT.test(sql)) this.record(runIdsOf(sql, parameters ?? []));
  }
  logQueryError(): void {}
  logQuerySlow(): void {}
  logSchemaBuild(): void {}
  logMigration(): void {}
  log(): void {}

  /** The writes that carried more than one row: the group commits. */
  get together(): CheckpointWrite[] {
    return this.writes.filter((w) => w.runIds.length > 1);
  }

  figures(): CheckpointFigures {
    const sizes = this.writes.map((w) => w.runIds.length);
    return {
      writes: sizes.length,
      rows: sizes.reduce((a, n) => a + n, 0),
      largest: Math.max(0, ...sizes),
    };
  }

  reset(): void {
    this.writes.length = 0;
  }

  private record(runIds: string[]): void {
    if (this.transaction) this.transaction.push(...runIds);
    else this.writes.push({ runIds });
  }

  private endTransaction(): void {
    const runIds = this.transaction;
    this.transaction = undefined;
    if (runIds && runIds.length > 0) this.writes.push({ runIds });
  }
}

function runIdsOf(sql: string, params: unknown[]): string[] {
  // PostgreSQL's batch: one array per column, run ids first.
  if (/\bunnest\(/i.test(sql)) return (params[0] as unknown[]).map(String);
  const runIds: string[] = [];
  for (let at = RUN_ID_PARAM; at < params.length; at += PARAMS_PER_ROW) {
    runIds.push(String(params[at]));
  }
  return runIds;
}
