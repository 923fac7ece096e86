import Database from 'better-sqlite3';
import { createConnection, type Connection } from 'mysql2/promise';
import { Client } from 'pg';
import { join } from 'node:path';
import { channelOf } from './lib/counter';
import { MARIADB, POSTGRES } from './lib/databases';
import { freshId, stepResult, type System } from './lib/workload';
import { MARIADB_DB, POSTGRES_DB, SQLITE_FULL, SQLITE_NORMAL } from './systems/waymark';

const CREATE =
  'CREATE TABLE IF NOT EXISTS bench_floor (run_id VARCHAR(64), seq INT, output TEXT, PRIMARY KEY (run_id, seq))';
const row = (runId: string, i: number): [string, number, string] => [
  runId,
  i,
  JSON.stringify(stepResult(i)),
];

/**
 * The fastest a checkpoint can be: the step's row, one committed `INSERT` per step through
 * the raw driver (autocommit, a prepared statement on SQLite and MariaDB), no library.
 */
abstract class Floor implements System {
  readonly label = 'one-INSERT floor';
  readonly kind = 'floor' as const;
  constructor(
    readonly db: string,
    readonly channel: string,
  ) {}
  abstract open(): Promise<void>;
  abstract run(steps: number): Promise<string>;
  abstract close(): Promise<void>;
}

class SqliteFloor extends Floor {
  private sqlite: Database.Database | undefined;
  constructor(
    db: string,
    private readonly file: string,
    private readonly synchronous: 'NORMAL' | 'FULL',
  ) {
    super(db, channelOf('sqlite', file));
  }
  async open(): Promise<void> {
    this.sqlite = new Database(this.file);
    this.sqlite.pragma('journal_mode = WAL');
    this.sqlite.pragma(`synchronous = ${this.synchronous}`);
    this.sqlite.exec(CREATE);
  }
  async run(steps: number): Promise<string> {
    const insert = this.sqlite!.prepare('INSERT INTO bench_floor VALUES (?, ?, ?)');
    const runId = freshId('floor');
    for (let i = 0; i < steps; i++) insert.run(...row(runId, i));
    return runId;
  }
  async close(): Promise<void> {
    this.sqlite?.close();
  }
}

class MariaDbFloor extends Floor {
  private mysql: Connection | undefined;
  async open(): Promise<void> {
    this.mysql = await createConnection(MARIADB);
    await this.mysql.query(CREATE);
  }
  async run(steps: number): Promise<string> {
    const runId = freshId('floor');
    for (let i = 0; i < steps; i++)
      await this.mysql!.execute('INSERT INTO bench_floor VALUES (?, ?, ?)', row(runId, i));
    return runId;
  }
  async close(): Promise<void> {
    await this.mysql?.end();
  }
}

class PostgresFloor extends Floor {
  private pg: Client | undefined;
  async open(): Promise<void> {
    this.pg = new Client(POSTGRES);
    await this.pg.connect();
    await this.pg.query(CREATE);
  }
  async run(steps: number): Promise<string> {
    const runId = freshId('floor');
    for (let i = 0; i < steps; i++)
      await this.pg!.query('INSERT INTO bench_floor VALUES ($1, $2, $3)', row(runId, i));
    return runId;
  }
  async close(): Promise<void> {
    await this.pg?.end();
  }
}

/** SQLite file in both synchronous modes, MariaDB and PostgreSQL. */
export function floors(dir: string): System[] {
  return [
    new SqliteFloor(SQLITE_NORMAL, join(dir, 'floor-normal.db'), 'NORMAL'),
    new SqliteFloor(SQLITE_FULL, join(dir, 'floor-full.db'), 'FULL'),
    new MariaDbFloor(MARIADB_DB, channelOf('mysql', MARIADB.database)),
    new PostgresFloor(POSTGRES_DB, channelOf('pg', POSTGRES.database)),
  ];
}
