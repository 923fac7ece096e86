import Database from 'better-sqlite3';
import { createPool, type Pool as MysqlPool } from 'mysql2/promise';
import { Pool as PgPool } from 'pg';
import { MARIADB, POSTGRES } from './lib/databases';
import { freshId, stepResult, type System } from './lib/workload';
import { MARIADB_DB, POSTGRES_DB, SQLITE_FULL } from './systems/waymark';

const CREATE =
  'CREATE TABLE IF NOT EXISTS bench_floor (run_id VARCHAR(64), seq INT, output TEXT, PRIMARY KEY (run_id, seq))';
type Row = [string, number, string];
const row = (runId: string, i: number): Row => [runId, i, JSON.stringify(stepResult(i))];

/** Inserts one step's row, durably, and resolves once it is committed. */
type Insert = (row: Row) => Promise<void>;

/** A run of the floors: `steps` sequential checkpoints, each awaited before the next. */
abstract class ConcurrencyFloor implements System {
  readonly kind = 'floor' as const;
  protected insert!: Insert;
  constructor(
    readonly label: string,
    readonly db: string,
  ) {}
  abstract open(): Promise<void>;
  abstract close(): Promise<void>;
  async run(steps: number): Promise<string> {
    const runId = freshId('floor');
    for (let i = 0; i < steps; i++) await this.insert(row(runId, i));
    return runId;
  }
}

/**
 * Client-side group commit: rows queue while a commit is in flight, then go in the next one
 * together; each resolves after the COMMIT holding it. What a checkpoint store could reach.
 */
function grouped(commit: (rows: Row[]) => Promise<void>): Insert {
  type Waiter = { row: Row; done: () => void; fail: (error: unknown) => void };
  let waiting: Waiter[] = [];
  let inFlight = false;
  const next = (): void => {
    if (waiting.length === 0) {
      inFlight = false;
      return;
    }
    const batch = waiting;
    waiting = [];
    void commit(batch.map((w) => w.row))
      .then(
        () => batch.forEach((w) => w.done()),
        (error: unknown) => batch.forEach((w) => w.fail(error)),
      )
      // After the released runs have queued their next rows (this turn's callbacks).
      .finally(() => process.nextTick(next));
  };
  return (r) =>
    new Promise<void>((done, fail) => {
      waiting.push({ row: r, done, fail });
      if (!inFlight) {
        inFlight = true;
        process.nextTick(next);
      }
    });
}

class SqliteConcurrencyFloor extends ConcurrencyFloor {
  private sqlite: Database.Database | undefined;
  constructor(
    label: string,
    private readonly file: string,
    private readonly group: boolean,
  ) {
    super(label, SQLITE_FULL);
  }
  async open(): Promise<void> {
    const sqlite = (this.sqlite = new Database(this.file));
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = FULL');
    sqlite.exec(CREATE);
    const insert = sqlite.prepare('INSERT INTO bench_floor VALUES (?, ?, ?)');
    const many = sqlite.transaction((rows: Row[]) => rows.forEach((r) => insert.run(...r)));
    this.insert = this.group
      ? grouped(async (rows) => void many(rows))
      : async (r) => void insert.run(...r);
  }
  async close(): Promise<void> {
    this.sqlite?.close();
  }
}

class MariaDbConcurrencyFloor extends ConcurrencyFloor {
  private pool: MysqlPool | undefined;
  constructor(
    label: string,
    private readonly group: boolean,
  ) {
    super(label, MARIADB_DB);
  }
  async open(): Promise<void> {
    const pool = (this.pool = createPool({ ...MARIADB, connectionLimit: this.group ? 1 : 10 }));
    await pool.query(CREATE);
    this.insert = this.group
      ? grouped(async (rows) => {
          const marks = rows.map(() => '(?, ?, ?)').join(', ');
          await pool.execute(`INSERT INTO bench_floor VALUES ${marks}`, rows.flat());
        })
      : async (r) => void (await pool.execute('INSERT INTO bench_floor VALUES (?, ?, ?)', r));
  }
  async close(): Promise<void> {
    await this.pool?.end();
  }
}

class PostgresConcurrencyFloor extends ConcurrencyFloor {
  private pool: PgPool | undefined;
  constructor(
    label: string,
    private readonly group: boolean,
  ) {
    super(label, POSTGRES_DB);
  }
  async open(): Promise<void> {
    const pool = (this.pool = new PgPool({ ...POSTGRES, max: this.group ? 1 : 10 }));
    await pool.query(CREATE);
    this.insert = this.group
      ? grouped(async (rows) => {
          await pool.query({
            name: 'floor_group',
            text: 'INSERT INTO bench_floor SELECT * FROM unnest($1::varchar[], $2::int[], $3::text[])',
            values: [rows.map((r) => r[0]), rows.map((r) => r[1]), rows.map((r) => r[2])],
          });
        })
      : async (r) =>
          void (await pool.query({
            name: 'floor_one',
            text: 'INSERT INTO bench_floor VALUES ($1, $2, $3)',
            values: r,
          }));
  }
  async close(): Promise<void> {
    await this.pool?.end();
  }
}

export const ONE_COMMIT_FLOOR = 'one-commit floor (pool of 10)';
export const GROUP_COMMIT_FLOOR = 'group-commit floor (one connection)';

/** The two floors of the concurrency section on each backend. */
export function concurrencyFloors(dir: string): System[] {
  return [
    new SqliteConcurrencyFloor(ONE_COMMIT_FLOOR, `${dir}/floor-one.db`, false),
    new SqliteConcurrencyFloor(GROUP_COMMIT_FLOOR, `${dir}/floor-group.db`, true),
    new MariaDbConcurrencyFloor(ONE_COMMIT_FLOOR, false),
    new MariaDbConcurrencyFloor(GROUP_COMMIT_FLOOR, true),
    new PostgresConcurrencyFloor(ONE_COMMIT_FLOOR, false),
    new PostgresConcurrencyFloor(GROUP_COMMIT_FLOOR, true),
  ];
}
