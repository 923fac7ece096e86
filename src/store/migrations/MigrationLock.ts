import { createHash } from 'node:crypto';
import type { DataSourceOptions, QueryRunner } from 'typeorm';
import { MigrationLockTimeoutError } from '../../errors/MigrationLockTimeoutError';
import { TransactionPoolerError } from '../../errors/TransactionPoolerError';
import type { DialectName } from '../connection/Dialect';
import { isBehindPgbouncer } from '../connection/pgbouncerOption';

/** Arbitrary constant naming waymark's advisory lock; PostgreSQL scopes it to one database. */
const PG_LOCK_KEY = 73_615_042;
/** MySQL and MariaDB refuse user-level lock names longer than this. */
const MYSQL_LOCK_NAME_MAX = 64;
const MYSQL_LOCK_PREFIX = 'waymark_migrations:';

/** Gives the lock back. */
export type ReleaseLock = (succeeded: boolean) => Promise<void>;

/**
 * What holds the migration lock: the `session` (the connection, across the migrations'
 * own transactions) or the one `transaction` every pending migration then runs in, which
 * ends it (SQLite; PostgreSQL behind a transaction-mode pooler, where a session does not
 * outlive a transaction).
 */
export type MigrationLockScope = 'session' | 'transaction';

/** The scope of the migration lock of a DataSource with these options. */
export function migrationLockScope(
  dialect: DialectName,
  options: DataSourceOptions,
): MigrationLockScope {
  return dialect === 'sqlite' || isBehindPgbouncer(options) ? 'transaction' : 'session';
}

/**
 * Takes the lock under which one process applies waymark's migrations to the database
 * `runner` is connected to, waiting at most `timeoutMs`; throws
 * {@link MigrationLockTimeoutError} when it is not free by then. MySQL/MariaDB: a
 * `GET_LOCK` named after the database (user-level locks are server-wide); PostgreSQL: an
 * advisory lock (already per database) under `lock_timeout`, held by the session or, with
 * `scope` `transaction`, by a transaction this opens (`pg_advisory_xact_lock`, `SET LOCAL`);
 * SQLite: `BEGIN IMMEDIATE` under a busy timeout, the whole migration being one transaction.
 */
export async function acquireMigrationLock(
  runner: QueryRunner,
  dialect: DialectName,
  scope: MigrationLockScope,
  timeoutMs: number,
): Promise<ReleaseLock> {
  switch (dialect) {
    case 'mysql':
      return mysqlLock(runner, timeoutMs);
    case 'postgres':
      return scope === 'transaction'
        ? postgresTransactionLock(runner, timeoutMs)
        : postgresLock(runner, timeoutMs);
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
  const lock = `pg_advisory_lock(${PG_LOCK_KEY})`;
  await runner.query(`SET lock_timeout = ${Math.max(1, Math.round(timeoutMs))}`);
  let acquired = false;
  try {
    await runner.query(`SELECT ${lock}`);
    acquired = true;
  } catch (error) {
    if (!isLockTimeout(error)) throw error;
    throw await postgresLockTimeout(runner, lock, timeoutMs);
  } finally {
    // A wait cut off by a lost connection fails with that loss (an outage, retried), not
    // with this reset's "query runner already released".
    await runner.query('RESET lock_timeout').catch((error: unknown) => {
      if (acquired) throw error;
    });
  }
  return async () => {
    const [{ released }] = await rows<{ released: boolean }>(
      runner,
      `SELECT pg_advisory_unlock(${PG_LOCK_KEY}) AS released`,
    );
    // This session took the lock, unless a transaction pooler sent the statements to
    // different server connections: then another one holds it still.
    if (!released) {
      const answer = `${lock} was taken, yet pg_advisory_unlock found this session held no such lock`;
      throw new TransactionPoolerError('release the migration lock', answer, false);
    }
  };
}

/**
 * The lock held by the transaction all pending migrations run in (behind a transaction
 * pooler): `SET LOCAL` and `pg_advisory_xact_lock` end with it, so nothing stays on a server
 * connection the pooler hands to another client next.
 */
async function postgresTransactionLock(
  runner: QueryRunner,
  timeoutMs: number,
): Promise<ReleaseLock> {
  const lock = `pg_advisory_xact_lock(${PG_LOCK_KEY})`;
  await runner.startTransaction();
  try {
    await runner.query(`SET LOCAL lock_timeout = ${Math.max(1, Math.round(timeoutMs))}`);
    await runner.query(`SELECT ${lock}`);
    // The migrations themselves wait for table locks as long as it takes, as with the session lock.
    await runner.query('SET LOCAL lock_timeout TO DEFAULT');
  } catch (error) {
    await runner.rollbackTransaction().catch(() => undefined);
    if (!isLockTimeout(error)) throw error;
    throw await postgresLockTimeout(runner, lock, timeoutMs);
  }
  return async (succeeded) => {
    if (succeeded) await runner.commitTransaction();
    else await runner.rollbackTransaction();
  };
}

/** PostgreSQL's lock_not_available (55P03): `lock_timeout` ran out. */
function isLockTimeout(error: unknown): boolean {
  return (error as { driverError?: { code?: string } }).driverError?.code === '55P03';
}

async function postgresLockTimeout(
  runner: QueryRunner,
  lock: string,
  timeoutMs: number,
): Promise<MigrationLockTimeoutError> {
  const [{ db }] = await rows<{ db: string }>(runner, 'SELECT current_database() AS db');
  return new MigrationLockTimeoutError(db, lock, timeoutMs);
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
