import type { Database } from './connection/Database';
import { isDuplicateKey, isMissingReference } from './connection/Dialect';
import type { DirectResult } from './connection/DirectDriver';
import type { StepRow } from './rows';
import { postgresArray } from './postgresArray';
import type { RunStore } from './RunStore';
import { appendStepInsertParams, byRowCount, statementsFor, stepInsertParams } from './statements';

/** One checkpoint waiting for its commit: the step's row and the epoch that fences it. */
export interface FencedStep {
  readonly row: StepRow;
  readonly epoch: number;
}

/** How one row of a batch ended: stored, found stored already, or refused (with its error). */
export type StepLanding = PromiseSettledResult<'inserted' | 'duplicate'>;

/**
 * PostgreSQL: every row in one statement, each joined to its run under its own epoch (the
 * fence), the runs share-locked as the one-row insert locks its run. Its row count says
 * whether every row landed; a row short met a lost fence (see {@link POSTGRES_RUN_EPOCHS}).
 * Nothing is returned row by row: at 64 concurrent runs, `RETURNING` cost about 5% of the
 * steps per second, for the rare batch that falls short. A stored duplicate refuses the whole
 * statement, as on MySQL: duplicates are rare (a commit whose answer was lost, written
 * again), and `ON CONFLICT DO NOTHING` made every row a speculative insertion (without it,
 * 64 concurrent runs went 3-16% faster).
 */
const POSTGRES_INSERT_STEPS =
  'INSERT INTO waymark_steps (run_id, seq, name, status, output, attempts, started_at, ' +
  'finished_at, idempotency_key) ' +
  'SELECT r.id, v.seq, v.name, v.status, v.output, v.attempts, v.started_at, v.finished_at, ' +
  'v.idempotency_key FROM unnest($1::varchar[], $2::integer[], $3::integer[], $4::varchar[], ' +
  '$5::varchar[], $6::text[], $7::integer[], $8::bigint[], $9::bigint[], $10::text[]) ' +
  'AS v(run_id, epoch, seq, name, status, output, attempts, started_at, finished_at, ' +
  'idempotency_key) JOIN waymark_runs r ON r.id = v.run_id AND r.epoch = v.epoch ' +
  'FOR SHARE OF r';

/**
 * PostgreSQL, after a batch fell short: the epochs of its runs now. A run still at a row's
 * epoch was at it when the batch ran (epochs only grow, and the batch's claim came before),
 * so that row landed. A run that moved on was claimed, before or after the batch committed:
 * its row is written again alone, and fails with the lost fence either way (a row that landed
 * before the claim stays stored, for the run's new holder to read).
 */
const POSTGRES_RUN_EPOCHS = 'SELECT id, epoch FROM waymark_runs WHERE id = ANY($1::varchar[])';

/** SQLite: the one-row insert, run once per row inside the batch's transaction. */
const SQLITE_INSERT_STEP = statementsFor('sqlite').insertStep;

/** MySQL/MariaDB: the one-row insert's statement with `count` rows, under its foreign-key fence. */
const mysqlInsertSteps = byRowCount((count) => {
  const [into, row] = statementsFor('mysql').insertStep.split(' VALUES ');
  return `${into} VALUES ${Array(count).fill(row).join(', ')}`;
});

/** Every row of the batch went in: most batches. */
const ALL = 'all';

/** A row's answer when it went in with the batch: one object for every such row. */
const INSERTED: StepLanding = Object.freeze({ status: 'fulfilled', value: 'inserted' });

/**
 * Writes many step rows in one commit — one statement on PostgreSQL and MySQL/MariaDB, one
 * transaction on SQLite — and says how each landed. A row the batch could not settle on its
 * own (a stored duplicate, which refuses the whole statement on the servers; a lost fence,
 * which does on MySQL; on PostgreSQL, a row of a batch that fell short whose run has moved on)
 * is written again alone, whose answer is exact: one run's lost lease never fails its
 * neighbours.
 */
export class StepBatches {
  constructor(
    private readonly db: Database,
    private readonly runs: RunStore,
  ) {}

  async write(steps: readonly FencedStep[]): Promise<StepLanding[]> {
    // Runs in one order, so two batches (or a batch and a lease renewal) lock them alike.
    const ordered = [...steps].sort((a, b) => (a.row.runId < b.row.runId ? -1 : 1));
    const landed = await this.writeTogether(ordered);
    // No promise, nor key, for each row when all of them went in.
    if (landed === ALL) return steps.map(() => INSERTED);
    return Promise.allSettled(
      steps.map((step) =>
        landed.has(step)
          ? Promise.resolve('inserted' as const)
          : this.runs.insertStep(step.row, step.epoch),
      ),
    );
  }

  /** Writes `steps` in one commit; returns those that landed, or that all did. */
  private async writeTogether(steps: readonly FencedStep[]): Promise<Set<FencedStep> | typeof ALL> {
    const operation = `record ${steps.length} steps in one commit`;
    switch (this.db.dialect) {
      case 'postgres': {
        let affected: number | undefined;
        try {
          ({ affected } = await this.db.exec(operation, POSTGRES_INSERT_STEPS, columnsOf(steps)));
        } catch (error) {
          // Nothing of the statement landed: each row is written alone.
          if (isDuplicateKey(error)) return new Set();
          throw error;
        }
        return affected === steps.length ? ALL : this.stillHeld(steps);
      }
      case 'mysql':
        try {
          await this.db.exec(
            operation,
            mysqlInsertSteps(steps.length),
            steps.reduce<unknown[]>((p, s) => appendStepInsertParams(p, s.row, s.epoch), []),
          );
          return ALL;
        } catch (error) {
          // Nothing of the statement landed: each row is written alone.
          if (isDuplicateKey(error) || isMissingReference(error)) return new Set();
          throw error;
        }
      case 'sqlite': {
        const results = await this.db.execTogether(
          operation,
          steps.map((s) => [SQLITE_INSERT_STEP, stepInsertParams(s.row, s.epoch)]),
        );
        if (results.every(landedAlone)) return ALL;
        return new Set(steps.filter((_, i) => landedAlone(results[i])));
      }
    }
  }

  /** PostgreSQL, after a batch fell short: its rows whose run is still at their epoch. */
  private async stillHeld(steps: readonly FencedStep[]): Promise<Set<FencedStep>> {
    const { records } = await this.db.exec(
      `read the epochs of the runs of ${steps.length} steps`,
      POSTGRES_RUN_EPOCHS,
      [postgresArray(steps.map((s) => s.row.runId))],
    );
    const epochs = new Map(records.map((r) => [String(r.id), Number(r.epoch)]));
    return new Set(steps.filter((s) => epochs.get(s.row.runId) === s.epoch));
  }
}

/** PostgreSQL's parameters: one array literal per column. */
function columnsOf(steps: readonly FencedStep[]): string[] {
  const rows = steps.map(({ row }) => row);
  return [
    postgresArray(rows.map((r) => r.runId)),
    postgresArray(steps.map((s) => s.epoch)),
    postgresArray(rows.map((r) => r.seq)),
    postgresArray(rows.map((r) => r.name)),
    postgresArray(rows.map((r) => r.status)),
    postgresArray(rows.map((r) => r.output)),
    postgresArray(rows.map((r) => r.attempts)),
    postgresArray(rows.map((r) => r.startedAt)),
    postgresArray(rows.map((r) => r.finishedAt)),
    postgresArray(rows.map((r) => r.idempotencyKey ?? null)),
  ];
}

/** A statement of the SQLite batch that inserted its row (not a duplicate, not fenced out). */
function landedAlone(result: DirectResult | Error | undefined): boolean {
  return result !== undefined && !(result instanceof Error) && result.affected === 1;
}
