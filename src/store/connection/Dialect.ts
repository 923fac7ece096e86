import type { DataSource } from 'typeorm';
import { ConfigurationError } from '../../errors/ConfigurationError';

/** The SQL family of a database waymark stores runs in. */
export type DialectName = 'sqlite' | 'mysql' | 'postgres';

/** Which family a TypeORM DataSource belongs to, or a ConfigurationError naming its type. */
export function dialectOf(dataSource: DataSource): DialectName {
  const type = dataSource.options.type;
  switch (type) {
    case 'better-sqlite3':
      return 'sqlite';
    case 'mysql':
    case 'mariadb':
      return 'mysql';
    case 'postgres':
      return 'postgres';
    default:
      throw new ConfigurationError(
        `waymark stores runs in SQLite (better-sqlite3), MySQL/MariaDB or PostgreSQL; got a DataSource of type "${type}"`,
      );
  }
}

/** The driver's code (`ER_DUP_ENTRY`, `23505`, …) of an error, unwrapped from TypeORM's. */
function driverCode(error: unknown): unknown {
  const driverError = (error as { driverError?: unknown } | null)?.driverError ?? error;
  return (driverError as { code?: unknown } | null | undefined)?.code;
}

/** Whether a driver error is a primary-key or unique-index violation. */
export function isDuplicateKey(error: unknown): boolean {
  const code = driverCode(error);
  return (
    code === 'SQLITE_CONSTRAINT_PRIMARYKEY' ||
    code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    code === 'ER_DUP_ENTRY' ||
    code === '23505'
  );
}

/** Whether a driver error is a foreign key naming a row that does not exist (MySQL 1452). */
export function isMissingReference(error: unknown): boolean {
  const code = driverCode(error);
  return code === 'ER_NO_REFERENCED_ROW_2' || code === 'ER_NO_REFERENCED_ROW';
}

/**
 * A stored text the database could not parse as JSON: PostgreSQL's `22P02` (and `22P05`, a
 * `\u0000` that `jsonb` cannot hold), MariaDB's error 4038 (`JSON_TABLE`).
 */
export function isInvalidJsonError(error: unknown): boolean {
  // The store reports a failed read as a StoreUnavailableError caused by the driver's error.
  const cause = (error as { cause?: unknown } | null)?.cause;
  return [error, cause].some((candidate) => {
    const code = driverCode(candidate);
    const errno = ((candidate as { driverError?: unknown } | null)?.driverError ?? candidate) as {
      errno?: unknown;
    } | null;
    return code === '22P02' || code === '22P05' || errno?.errno === 4038;
  });
}

/** A deadlock or serialization failure: another transaction won the rows this one wanted. */
export function isLockConflict(error: unknown): boolean {
  const code = driverCode(error);
  return code === 'ER_LOCK_DEADLOCK' || code === '40P01' || code === '40001';
}
