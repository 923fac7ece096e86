import Database from 'better-sqlite3';
import { createConnection, type Connection } from 'mysql2/promise';
import { Client } from 'pg';
import type { DataSourceOptions } from 'typeorm';
import { Waymark } from 'waymark';
import { Sequence } from '../fixtures/Sequence';
import { MARIADB, POSTGRES } from '../lib/databases';
import { freshId, type System } from '../lib/workload';
import { MARIADB_DB, POSTGRES_DB, SQLITE_FULL, quiet, withQueryLogger } from './waymark';

/**
 * waymark's own step INSERT, captured from its TypeORM logger and replayed through the raw
 * driver the way waymark sends it (prepared on SQLite and MariaDB, a named statement on
 * PostgreSQL), with nothing else: what the statement's shape costs, apart from
 * waymark's JavaScript. A diagnostic row, not a target.
 */
export class StepInsertSystem implements System {
  readonly label = "waymark's step INSERT alone (raw driver)";
  readonly kind = 'floor' as const;
  private sql = '';
  private params: unknown[] = [];
  private seq = 1_000_000;
  private sqlite: Database.Database | undefined;
  private mysql: Connection | undefined;
  private pg: Client | undefined;

  constructor(
    readonly db: string,
    private readonly database: string | DataSourceOptions,
    readonly channel: string,
  ) {}

  async open(): Promise<void> {
    const runId = freshId('stmt');
    const runtime = await Waymark.create({
      database: withQueryLogger(this.database, (sql, params) => {
        if (/^INSERT INTO waymark_steps/.test(sql)) [this.sql, this.params] = [sql, params ?? []];
      }),
      logger: quiet,
    });
    try {
      await runtime.run(Sequence, 'run', [runId, 1]);
    } finally {
      await runtime.close();
    }
    if (!this.sql) throw new Error('no step INSERT was logged');
    if (this.db === MARIADB_DB) this.mysql = await createConnection(MARIADB);
    else if (this.db === POSTGRES_DB) {
      this.pg = new Client(POSTGRES);
      await this.pg.connect();
    } else {
      const file = (this.channel.match(/^sqlite:(.*)$/) ?? [])[1];
      this.sqlite = new Database(file);
      this.sqlite.pragma(`synchronous = ${this.db === SQLITE_FULL ? 'FULL' : 'NORMAL'}`);
    }
  }

  async run(steps: number): Promise<string> {
    // The seq is the first parameter; the run row (id, epoch) is the captured one.
    const params = (): unknown[] => [this.seq++, ...this.params.slice(1)];
    if (this.sqlite) {
      const insert = this.sqlite.prepare(this.sql);
      for (let i = 0; i < steps; i++) insert.run(...params());
    } else if (this.mysql) {
      for (let i = 0; i < steps; i++)
        await this.mysql.execute(this.sql, params() as Array<string | number | null>);
    } else {
      for (let i = 0; i < steps; i++)
        await this.pg!.query({ name: 'bench_step_insert', text: this.sql, values: params() });
    }
    return '';
  }

  async close(): Promise<void> {
    this.sqlite?.close();
    await this.mysql?.end();
    await this.pg?.end();
  }
}

export const stepInsertSystems = (
  databases: Array<{ db: string; database: string | DataSourceOptions; channel: string }>,
): System[] => databases.map((d) => new StepInsertSystem(d.db, d.database, d.channel));
