import { join } from 'node:path';
import type { DataSourceOptions } from 'typeorm';
import {
  Waymark,
  dataSourceOptionsFromUrl,
  type RuntimeOptions,
  type WaymarkRuntime,
} from 'waymark';
import { Sequence } from '../fixtures/Sequence';
import { channelOf } from '../lib/counter';
import { MARIADB, MARIADB_URL, POSTGRES, POSTGRES_URL } from '../lib/databases';
import { freshId, type System } from '../lib/workload';

export const quiet = { debug() {}, info() {}, warn() {}, error() {} };

export const SQLITE_NORMAL = 'SQLite file (WAL, synchronous=NORMAL)';
export const SQLITE_FULL = 'SQLite file (WAL, synchronous=FULL)';
export const MARIADB_DB = 'MariaDB (InnoDB defaults)';
export const POSTGRES_DB = 'PostgreSQL (defaults)';

/** waymark's `database` option for each backend the bench measures (`dir` absolute). */
export function waymarkDatabases(
  dir: string,
): Array<{ db: string; database: string | DataSourceOptions; channel: string }> {
  const normal = join(dir, 'waymark-normal.db');
  const full = join(dir, 'waymark-full.db');
  return [
    // waymark's default for a SQLite file: WAL, synchronous=NORMAL.
    { db: SQLITE_NORMAL, database: `sqlite:${normal}`, channel: channelOf('sqlite', normal) },
    {
      db: SQLITE_FULL,
      database: `sqlite:${full}?synchronous=full`,
      channel: channelOf('sqlite', full),
    },
    { db: MARIADB_DB, database: MARIADB_URL, channel: channelOf('mysql', MARIADB.database) },
    { db: POSTGRES_DB, database: POSTGRES_URL, channel: channelOf('pg', POSTGRES.database) },
  ];
}

/** The same backends as TypeORM options with a query logger, to count through TypeORM too. */
export function withQueryLogger(
  database: string | DataSourceOptions,
  logQuery: (sql: string, params?: unknown[]) => void,
): DataSourceOptions {
  const logger = {
    logQuery,
    logQueryError() {},
    logQuerySlow() {},
    logSchemaBuild() {},
    logMigration() {},
    log() {},
  };
  const base = typeof database === 'string' ? dataSourceOptionsFromUrl(database) : database;
  return { ...base, logging: ['query'], logger };
}

export class WaymarkSystem implements System {
  readonly kind = 'waymark' as const;
  private runtime: WaymarkRuntime | undefined;

  constructor(
    readonly db: string,
    private readonly database: RuntimeOptions['database'],
    readonly channel: string,
    private readonly options: Partial<RuntimeOptions> = {},
    readonly label = 'waymark',
  ) {}

  async open(): Promise<void> {
    this.runtime = await Waymark.create({
      ...this.options,
      database: this.database,
      logger: quiet,
    });
  }

  async run(steps: number): Promise<string> {
    const id = freshId('wm');
    const last = await this.runtime!.run(Sequence, 'run', [id, steps]);
    if (last !== steps - 1) throw new Error(`waymark returned ${last}`);
    return id;
  }

  /** Bytes of the run's rows (run and steps), as PostgreSQL sizes them; undefined elsewhere. */
  storedBytes(id: string): Promise<number> | undefined {
    if (this.db !== POSTGRES_DB) return undefined;
    return this.runtime!.dataSource.query(
      'SELECT (SELECT COALESCE(SUM(pg_column_size(s.*)), 0) FROM waymark_steps s WHERE s.run_id = $1) + ' +
        '(SELECT COALESCE(SUM(pg_column_size(r.*)), 0) FROM waymark_runs r WHERE r.id = $1) AS bytes',
      [id],
    ).then((rows: Array<{ bytes: string }>) => Number(rows[0].bytes));
  }

  async close(): Promise<void> {
    await this.runtime?.close();
  }
}

export const waymarkSystems = (dir: string): WaymarkSystem[] =>
  waymarkDatabases(dir).map(
    ({ db, database, channel }) => new WaymarkSystem(db, database, channel),
  );
