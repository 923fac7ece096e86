import { createHash } from 'node:crypto';
import type { QueryRunner } from 'typeorm';
import { MigrationLockTimeoutError } from '../errors/MigrationLockTimeoutError';
import type { DialectName } from './Dialect';

/** Arbitrary constant naming waymark's advisory lock; PostgreSQL scopes it to one database. */
const PG_LOCK_KEY = 73_615_042;
/** MySQL and MariaDB refuse user-level lock names longer than this. */
const MYSQL_LOCK_NAME_MAX = 64;
const MYSQL_LOCK_PREFIX = 'waymark_migrations:';

/** Gives the lock back. */
export type ReleaseLock = (succeeded: boolean) => Promise<void>;

/**
 * Takes the lock under which one process applies waymark's migrations to the database
 * `runner` is connected to, waiting at most `timeoutMs`; throws
 * {@link MigrationLockTimeoutError} when it is not free by then. MySQL/MariaDB: a
 * `GET_LOCK` named after the database (user-level locks are server-wide); PostgreSQL: an
 * advisory lock (already per database) under `lock_timeout`; SQLite: `BEGIN IMMEDIATE`
 * under a busy timeout, the whole migration being one transaction.
 */
export async function acquireMigrationLock(
  runner: QueryRunner,
  dialect: DialectName,
  timeoutMs: number,
): Promise<ReleaseLock> {
  switch (dialect) {
    case 'mysql':
      return mysqlLock(runner, timeoutMs);
    case 'postgres':
      return postgresLock(runner, timeoutMs);
    default:
      return sqliteLock(runner, timeoutMs);
  }
}

/** The `GET_LOCK` name for `database`: readable when it fits, hashed when it would not. */
export function mysqlMigrationLockName(database: string): string {
  const name = MYSQL_LOCK_PREFIX + database;
  if (name.length <= MYSQL_LOCK_NAME_MAX) return name;
  const hash = createHash('sha256').update(database).digest('hex');
  return MYSQL_LOCK_PREFIX + hash.slice(0, MYSQL_LOCK_NAME_MAX - MYSQL_LOCK_PREFIX.length);
}

async function mysqlLock(runner: QueryRunner, timeoutMs: number): Promise<ReleaseLock> {
  const [{ db }] = await rows<{ db: string }>(runner, 'SELECT DATABASE() AS db');
  const name = mysqlMigrationLockName(db);
  const [{ acquired }] = await rows<{ acquired: unknown }>(
    runner,
    'SELECT GET_LOCK(?, ?) AS acquired',
    [name, timeoutMs / 1000],
  );
  // 0 after the timeout; NULL when the wait itself failed (the session was killed).
  if (Number(acquired) !== 1) {
    throw new MigrationLockTimeoutError(db, `GET_LOCK('${name}')`, timeoutMs);
  }
  return async () => {
    await runner.query('SELECT RELEASE_LOCK(?)', [name]);
  };
}

async function postgresLock(runner: QueryRunner, timeoutMs: number): Promise<ReleaseLock> {
  await runner.query(`SET lock_timeout = ${Math.max(1, Math.round(timeoutMs))}`);
  let acquired = false;
  try {
    await runner.query(`SELECT pg_advisory_lock(${PG_LOCK_KEY})`);
    acquired = true;
  } catch (error) {
    if ((error as { driverError?: { code?: string } }).driverError?.code !== '55P03') throw error;
    const [{ db }] = await rows<{ db: string }>(runner, 'SELECT current_database() AS db');
    throw new MigrationLockTimeoutError(db, `pg_advisory_lock(${PG_LOCK_KEY})`, timeoutMs);
  } finally {
    // A wait cut off by a lost connection fails with that loss (an outage, retried), not
    // with this reset's "query runner already released".
    await runner.query('RESET lock_timeout').catch((error: unknown) => {
      if (acquired) throw error;
    });
  }
  return async () => {
    await runner.query(`SELECT pg_advisory_unlock(${PG_LOCK_KEY})`);
  };
}

/** SQLite's lock is the transaction itself: a failed migration rolls back entirely. */
async function sqliteLock(runner: QueryRunner, timeoutMs: number): Promise<ReleaseLock> {
  const [{ timeout }] = await rows<{ timeout: number }>(runner, 'PRAGMA busy_timeout');
  await runner.query(`PRAGMA busy_timeout = ${Math.max(1, Math.round(timeoutMs))}`);
  try {
    await runner.query('BEGIN IMMEDIATE');
  } catch (error) {
    if (!/SQLITE_BUSY|database is locked/.test(String((error as Error).message))) throw error;
    throw new MigrationLockTimeoutError(
      String(runner.connection.options.database),
      'BEGIN IMMEDIATE',
      timeoutMs,
    );
  } finally {
    await runner.query(`PRAGMA busy_timeout = ${Number(timeout)}`);
  }
  return async (succeeded) => {
    await runner.query(succeeded ? 'COMMIT' : 'ROLLBACK');
  };
}

async function rows<T>(runner: QueryRunner, sql: string, params: unknown[] = []): Promise<T[]> {
  return (await runner.query(sql, params)) as T[];
}
