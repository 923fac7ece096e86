import { createHash } from 'node:crypto';
import type { DataSource } from 'typeorm';

/** Rows read, or rows changed, by one statement. */
export interface DirectResult {
  records: Array<Record<string, unknown>>;
  affected: number | undefined;
}

/** Runs one statement on the driver TypeORM opened, without a query runner per call. */
export type DirectQuery = (sql: string, params: unknown[]) => Promise<DirectResult>;

type SqliteStatement = {
  reader: boolean;
  all(...p: unknown[]): unknown[];
  run(...p: unknown[]): { changes: number };
};
type SqliteDatabase = { prepare(sql: string): SqliteStatement };
type MysqlCallback = (err: Error | null, rows: unknown) => void;
type MysqlPool = {
  query(sql: string, values: unknown[], cb: MysqlCallback): void;
  execute?(sql: string, values: unknown[], cb: MysqlCallback): void;
};
type PgPool = {
  query(config: {
    name?: string;
    text: string;
    values: unknown[];
  }): Promise<{ rows: unknown[]; rowCount: number | null }>;
};

/**
 * The hot path's way to the database: the pool or connection TypeORM already opened, with
 * statements prepared once (SQLite) or named so the server plans them once per connection
 * (PostgreSQL). A TypeORM query runner per statement costs more than the statement itself
 * on SQLite. Statements still go through the DataSource's logger. Undefined when the
 * DataSource's driver is not one of these (then the query runner is used).
 */
export function directQuery(dataSource: DataSource): DirectQuery | undefined {
  const driver = dataSource.driver as unknown as Record<string, unknown>;
  const log = (sql: string, params: unknown[]): void => {
    if (dataSource.options.logging) dataSource.logger.logQuery(sql, params);
  };
  switch (dataSource.options.type) {
    case 'better-sqlite3': {
      const db = driver.databaseConnection as SqliteDatabase | undefined;
      if (!db) return undefined;
      const prepared = new Map<string, SqliteStatement>();
      // better-sqlite3 is synchronous; async turns its throws into rejections.
      // eslint-disable-next-line @typescript-eslint/require-await
      return async (sql, params) => {
        log(sql, params);
        let statement = prepared.get(sql);
        if (!statement) prepared.set(sql, (statement = db.prepare(sql)));
        const values = params.map((p) =>
          typeof p === 'boolean' ? Number(p) : p === undefined ? null : p,
        );
        if (statement.reader)
          return {
            records: statement.all(...values) as DirectResult['records'],
            affected: undefined,
          };
        return { records: [], affected: statement.run(...values).changes };
      };
    }
    case 'mysql':
    case 'mariadb': {
      const pool = driver.pool as MysqlPool | undefined;
      if (!pool) return undefined;
      // Writes go as prepared statements: the server parses and plans a step's
      // INSERT … SELECT once per connection instead of once per step. Reads stay on the
      // text protocol, whose result types TypeORM's options (big numbers, dates) shape.
      const execute = pool.execute?.bind(pool);
      const query = pool.query.bind(pool);
      return (sql, params) => {
        log(sql, params);
        const send: MysqlPool['query'] =
          execute && !/^\s*SELECT/i.test(sql)
            ? (text, values, cb) =>
                execute(
                  text,
                  values.map((v) => (v === undefined ? null : v)),
                  cb,
                )
            : query;
        return new Promise((resolve, reject) =>
          send(sql, params, (error, rows) => {
            if (error) return reject(error);
            if (Array.isArray(rows))
              resolve({ records: rows as DirectResult['records'], affected: undefined });
            else
              resolve({ records: [], affected: (rows as { affectedRows: number }).affectedRows });
          }),
        );
      };
    }
    case 'postgres': {
      const pool = driver.master as PgPool | undefined;
      if (!pool) return undefined;
      const names = new Map<string, string>();
      return async (sql, params) => {
        log(sql, params);
        let name = names.get(sql);
        if (!name)
          names.set(
            sql,
            (name = `wm_${createHash('sha1').update(sql).digest('hex').slice(0, 16)}`),
          );
        const result = await pool.query({ name, text: sql, values: params });
        return {
          records: result.rows as DirectResult['records'],
          affected: result.rowCount ?? undefined,
        };
      };
    }
    default:
      return undefined;
  }
}
