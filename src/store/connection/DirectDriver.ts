import { createHash } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { isBehindPgbouncer } from './pgbouncerOption';

/** Rows read, or rows changed, by one statement: the shape of TypeORM's `QueryResult`. */
export interface DirectResult {
  raw: unknown;
  records: Array<Record<string, unknown>>;
  affected: number | undefined;
}

/** Runs one statement on the driver TypeORM opened, without a query runner per call. */
export type DirectQuery = (sql: string, params: unknown[]) => Promise<DirectResult>;

/** The same, run synchronously (better-sqlite3's own way); it throws what the statement throws. */
export type DirectQueryNow = (sql: string, params: unknown[]) => DirectResult;

/** Whether a statement's result is still to come (rather than already here). */
export const isPending = (
  result: DirectResult | Promise<DirectResult>,
): result is Promise<DirectResult> => typeof (result as { then?: unknown }).then === 'function';

/** A driver's direct way: every driver's, and SQLite's synchronous one beside it. */
export interface DirectDriver {
  readonly query: DirectQuery;
  readonly now?: DirectQueryNow;
}

const rowsRead = (records: DirectResult['records'], affected?: number): DirectResult => ({
  raw: records,
  records,
  affected,
});
const rowsChanged = (affected: number | undefined): DirectResult => rowsRead([], affected);

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
type PgResult = { rows: Array<Record<string, unknown>>; rowCount: number | null };
/** node-postgres's `Query`: a statement the pool can submit as it is. */
type PgQuery = { name?: string };
type PgPool = {
  query(query: PgQuery, cb: (err: Error | undefined, result: PgResult) => void): void;
};
type PgModule = { Query?: new (text: string, values: unknown[]) => PgQuery };

/**
 * The hot path's way to the database: the pool or connection TypeORM already opened, with
 * statements prepared once (SQLite) or named so the server plans them once per connection
 * (PostgreSQL; unnamed behind a transaction-mode pooler, `pgbouncer=true`, whose server
 * connections are not the client's). A TypeORM query runner per statement costs more than
 * the statement itself on SQLite. Statements still go through the DataSource's logger. Undefined when the
 * DataSource's driver is not one of these (then the query runner is used).
 */
export function directDriver(dataSource: DataSource): DirectDriver | undefined {
  const driver = dataSource.driver as unknown as Record<string, unknown>;
  const log: Log = (sql, params) => {
    if (dataSource.options.logging) dataSource.logger.logQuery(sql, params);
  };
  switch (dataSource.options.type) {
    case 'better-sqlite3':
      return sqliteQuery(driver, log);
    case 'mysql':
    case 'mariadb':
      return only(mysqlQuery(driver, log));
    case 'postgres':
      return only(postgresQuery(driver, log, !isBehindPgbouncer(dataSource.options)));
    default:
      return undefined;
  }
}

/** Hands a statement to the DataSource's logger (when it logs). */
type Log = (sql: string, params: unknown[]) => void;

const only = (query: DirectQuery | undefined): DirectDriver | undefined => query && { query };

/** SQLite: each statement prepared once, then run synchronously. */
function sqliteQuery(driver: Record<string, unknown>, log: Log): DirectDriver | undefined {
  const db = driver.databaseConnection as SqliteDatabase | undefined;
  if (!db) return undefined;
  const prepared = new Map<string, SqliteStatement>();
  const now: DirectQueryNow = (sql, params) => {
    log(sql, params);
    let statement = prepared.get(sql);
    if (!statement) prepared.set(sql, (statement = db.prepare(sql)));
    const values = sqliteValues(params);
    if (statement.reader) return rowsRead(statement.all(...values) as DirectResult['records']);
    return rowsChanged(statement.run(...values).changes);
  };
  // Async turns its throws into rejections.
  // eslint-disable-next-line @typescript-eslint/require-await
  return { query: async (sql, params) => now(sql, params), now };
}

/**
 * `params` as better-sqlite3 binds them (it takes no booleans or undefined): the same array
 * when nothing needs changing, as on every checkpoint.
 */
function sqliteValues(params: unknown[]): unknown[] {
  for (let i = 0; i < params.length; i++) {
    const p = params[i];
    if (typeof p === 'boolean' || p === undefined) {
      return params.map((v) => (typeof v === 'boolean' ? Number(v) : v === undefined ? null : v));
    }
  }
  return params;
}

/** `params` with null for undefined (mysql2 binds no undefined): the same array when none is. */
function withNulls(params: unknown[]): unknown[] {
  return params.includes(undefined) ? params.map((v) => (v === undefined ? null : v)) : params;
}

/** MySQL/MariaDB: through TypeORM's pool, writes as prepared statements. */
function mysqlQuery(driver: Record<string, unknown>, log: Log): DirectQuery | undefined {
  const pool = driver.pool as MysqlPool | undefined;
  if (!pool) return undefined;
  // Writes go as prepared statements: the server parses a step's INSERT once per
  // connection instead of once per step. Reads stay on the
  // text protocol, whose result types TypeORM's options (big numbers, dates) shape.
  const execute = pool.execute?.bind(pool);
  const query = pool.query.bind(pool);
  const done =
    (resolve: (result: DirectResult) => void, reject: (error: Error) => void): MysqlCallback =>
    (error, rows) => {
      if (error) reject(error);
      else if (Array.isArray(rows)) resolve(rowsRead(rows as DirectResult['records']));
      else resolve(rowsChanged((rows as { affectedRows: number }).affectedRows));
    };
  // Everything runs inside the executor, so a throw rejects rather than escaping the caller.
  return (sql, params) =>
    new Promise((resolve, reject) => {
      log(sql, params);
      if (execute && !/^\s*SELECT/i.test(sql)) {
        execute(sql, withNulls(params), done(resolve, reject));
      } else query(sql, params, done(resolve, reject));
    });
}

/**
 * PostgreSQL: through TypeORM's pool, each statement named (`named`) so the server plans it
 * once per connection. Behind a transaction pooler, a name prepared on one server connection
 * is missing on the next, or already taken there by another client: each statement is then
 * parsed anew.
 */
function postgresQuery(
  driver: Record<string, unknown>,
  log: Log,
  named: boolean,
): DirectQuery | undefined {
  const pool = driver.master as PgPool | undefined;
  const Query = (driver.postgres as PgModule | undefined)?.Query;
  if (!pool || !Query) return undefined;
  const names = new Map<string, string>();
  const nameOf = (sql: string): string => {
    let name = names.get(sql);
    if (!name) {
      name = `wm_${createHash('sha1').update(sql).digest('hex').slice(0, 16)}`;
      names.set(sql, name);
    }
    return name;
  };
  // A Query built from text, then named: given a config object instead, node-postgres
  // copies it property by property through descriptors on every call. The pool's
  // callback form adds no promise of its own. Everything runs inside the executor, so
  // a throw rejects rather than escaping the caller.
  return (sql, params) =>
    new Promise((resolve, reject) => {
      log(sql, params);
      const query = new Query(sql, params);
      if (named) query.name = nameOf(sql);
      pool.query(query, (error, result) => {
        if (error) reject(error);
        else resolve(rowsRead(result.rows, result.rowCount ?? undefined));
      });
    });
}
