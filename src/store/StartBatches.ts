import type { Database } from './connection/Database';
import { isDuplicateKey } from './connection/Dialect';
import type { DirectResult } from './connection/DirectDriver';
import type { RunRow } from './rows';
import type { RunStore } from './RunStore';
import { serverNowSql } from './serverClock';
import { INSERTED_RUN_COLUMNS, byRowCount, runInsertParams, statementsFor } from './statements';

/** One new run waiting for its commit: its row, leased for `leaseMs` from the server's now. */
export interface NewRun {
  readonly row: RunRow;
  readonly leaseMs: number | null;
}

/** How one new run of a batch landed: created (true), found stored already (false), or refused. */
export type StartLanding = PromiseSettledResult<boolean>;

/** The inserted columns' types, in {@link INSERTED_RUN_COLUMNS}' order (the lease as a duration). */
const POSTGRES_RUN_TYPES = [
  'varchar', // id
  'varchar', // workflow
  'varchar', // version
  'varchar', // status
  'text', // args
  'text', // result
  'text', // error
  'varchar', // owner
  'integer', // epoch
  'bigint', // lease: milliseconds from the server's now
  'bigint', // wake_at
  'varchar', // parent_run_id
  'varchar', // lease_host
  'varchar', // lease_process
  'varchar', // claim_token
  'bigint', // created_at
  'bigint', // updated_at
  'bigint', // deadline_at
  'bigint', // start_by
  'varchar', // waiting_for
];
const LEASE_COLUMN = 9;

/**
 * PostgreSQL: every new run in one statement, one array per column; a run it does not return
 * was stored already (or arrived twice), and is inserted again alone for its exact answer.
 */
const POSTGRES_INSERT_RUNS = (() => {
  const columns = INSERTED_RUN_COLUMNS.split(', ');
  const values = columns.map((_, i) =>
    i === LEASE_COLUMN ? `(${serverNowSql('postgres')} + v.c${i})` : `v.c${i}`,
  );
  const arrays = POSTGRES_RUN_TYPES.map((type, i) => `$${i + 1}::${type}[]`);
  return (
    `INSERT INTO waymark_runs (${INSERTED_RUN_COLUMNS}) SELECT ${values.join(', ')} ` +
    `FROM unnest(${arrays.join(', ')}) AS v(${columns.map((_, i) => `c${i}`).join(', ')}) ` +
    'ON CONFLICT DO NOTHING RETURNING id'
  );
})();

/** SQLite: the one-run insert, once per run inside the batch's transaction. */
const SQLITE_INSERT_RUN = statementsFor('sqlite').insertRun;

/** MySQL/MariaDB: the one-run insert's statement with `count` rows. */
const mysqlInsertRuns = byRowCount((count) => {
  const [into, row] = statementsFor('mysql').insertRun.split(' VALUES ');
  return `${into} VALUES ${Array(count).fill(row).join(', ')}`;
});

/**
 * Creates many runs in one commit — one statement on PostgreSQL and MySQL/MariaDB, one
 * transaction on SQLite — and says how each landed. A run the batch could not settle on its
 * own (one stored already, which on MySQL refuses the whole statement) is inserted again
 * alone, whose answer is exact.
 */
export class StartBatches {
  constructor(
    private readonly db: Database,
    private readonly runs: RunStore,
  ) {}

  async write(starts: readonly NewRun[]): Promise<StartLanding[]> {
    const landed = await this.writeTogether(starts);
    // A run inserted alone waits for an earlier start of the same run in the batch: on two
    // connections at once, the second could otherwise be the one created.
    const before = new Map<string, Promise<boolean>>();
    return Promise.allSettled(
      starts.map((start) => {
        // The first of a run started twice in the batch is the one created (`delete`).
        if (landed.delete(start.row.id)) return Promise.resolve(true);
        const insert = (): Promise<boolean> => this.runs.insertRun(start.row, start.leaseMs);
        const earlier = before.get(start.row.id);
        const inserted = earlier ? earlier.then(insert, insert) : insert();
        before.set(start.row.id, inserted);
        return inserted;
      }),
    );
  }

  /** Inserts `starts` in one commit; returns the ids of the runs it created. */
  private async writeTogether(starts: readonly NewRun[]): Promise<Set<string>> {
    const operation = `create ${starts.length} runs in one commit`;
    const params = starts.map((s) => runInsertParams(s.row, s.leaseMs));
    switch (this.db.dialect) {
      case 'postgres': {
        const columns = POSTGRES_RUN_TYPES.map((_, i) => params.map((p) => p[i]));
        const { records } = await this.db.exec(operation, POSTGRES_INSERT_RUNS, columns);
        return new Set(records.map((r) => String(r.id)));
      }
      case 'mysql':
        try {
          await this.db.exec(operation, mysqlInsertRuns(starts.length), params.flat());
          return new Set(starts.map((s) => s.row.id));
        } catch (error) {
          // A run stored already refuses the whole statement: each is inserted alone.
          if (isDuplicateKey(error)) return new Set();
          throw error;
        }
      case 'sqlite': {
        const results = await this.db.execTogether(
          operation,
          params.map((p) => [SQLITE_INSERT_RUN, p]),
        );
        return new Set(starts.filter((_, i) => insertedOne(results[i])).map((s) => s.row.id));
      }
    }
  }
}

/** A statement of the SQLite batch that inserted its row (a duplicate is an error in its place). */
function insertedOne(result: DirectResult | Error | undefined): boolean {
  return result !== undefined && !(result instanceof Error) && result.affected === 1;
}
