import type { DataSourceOptions, Logger as TypeOrmLogger } from 'typeorm';
import { dataSourceOptionsFromUrl } from 'waymark';

/** One checkpoint row: the step `seq` of run `runId`. */
export interface CheckpointRow {
  readonly runId: string;
  readonly seq: number;
}

/** One write of checkpoint rows as it was sent: a statement, or on SQLite a transaction. */
export interface CheckpointWrite {
  /** The rows it carried, in the order sent. */
  readonly rows: CheckpointRow[];
  /** The run of each row. */
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
/** Every row of a checkpoint insert has ten parameters: its seq first, its run id ninth. */
const PARAMS_PER_ROW = 10;
const SEQ_PARAM = 0;
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
  private transaction: CheckpointRow[] | undefined;

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
    else if (STEP_INSERT.test(sql)) this.record(rowsOf(sql, parameters ?? []));
  }
  logQueryError(): void {}
  logQuerySlow(): void {}
  logSchemaBuild(): void {}
  logMigration(): void {}
  log(): void {}

  /** The writes that carried more than one row: the group commits. */
  get together(): CheckpointWrite[] {
    return this.writes.filter((w) => w.rows.length > 1);
  }

  figures(): CheckpointFigures {
    const sizes = this.writes.map((w) => w.rows.length);
    return {
      writes: sizes.length,
      rows: sizes.reduce((a, n) => a + n, 0),
      largest: Math.max(0, ...sizes),
    };
  }

  reset(): void {
    this.writes.length = 0;
  }

  private record(rows: CheckpointRow[]): void {
    if (this.transaction) this.transaction.push(...rows);
    else this.push(rows);
  }

  private endTransaction(): void {
    const rows = this.transaction;
    this.transaction = undefined;
    if (rows && rows.length > 0) this.push(rows);
  }

  private push(rows: CheckpointRow[]): void {
    this.writes.push({ rows, runIds: rows.map((r) => r.runId) });
  }
}

function rowsOf(sql: string, params: unknown[]): CheckpointRow[] {
  // PostgreSQL's batch: one array literal per column, run ids first, seqs third.
  if (/\bunnest\(/i.test(sql)) {
    const seqs = elementsOf(params[2]);
    return elementsOf(params[0]).map((runId, i) => ({
      runId: String(runId),
      seq: Number(seqs[i]),
    }));
  }
  const rows: CheckpointRow[] = [];
  for (let at = 0; at < params.length; at += PARAMS_PER_ROW) {
    rows.push({ runId: String(params[at + RUN_ID_PARAM]), seq: Number(params[at + SEQ_PARAM]) });
  }
  return rows;
}

/**
 * The elements of a PostgreSQL array parameter: an array, or the literal waymark sends
 * (`{"a","b\"c",NULL}`, `{1,2}`; see `postgresArray`).
 */
function elementsOf(param: unknown): Array<string | null> {
  if (Array.isArray(param)) return param.map((v) => (v === null ? null : String(v)));
  const literal = String(param);
  if (!literal.startsWith('{') || !literal.endsWith('}')) {
    throw new Error(`not an array literal: ${literal.slice(0, 80)}`);
  }
  const elements: Array<string | null> = [];
  let i = 1;
  while (i < literal.length - 1) {
    if (literal[i] === '"') {
      let text = '';
      for (i++; literal[i] !== '"'; i++) text += literal[i] === '\\' ? literal[++i] : literal[i];
      elements.push(text);
      i++;
    } else {
      const end = literal.indexOf(',', i);
      const bare = literal.slice(i, end === -1 ? literal.length - 1 : end);
      elements.push(bare === 'NULL' ? null : bare);
      i += bare.length;
    }
    if (literal[i] === ',') i++;
  }
  return elements;
}
