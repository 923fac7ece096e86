import type { DataSource } from 'typeorm';
import { ConfigurationError } from '../errors/ConfigurationError';

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

/** Whether a driver error is a primary-key or unique-index violation. */
export function isDuplicateKey(error: unknown): boolean {
  const driverError = (error as { driverError?: Record<string, unknown> })?.driverError ?? error;
  const code = (driverError as Record<string, unknown> | undefined)?.code;
  return (
    code === 'SQLITE_CONSTRAINT_PRIMARYKEY' ||
    code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    code === 'ER_DUP_ENTRY' ||
    code === '23505'
  );
}

/** Whether a driver error is a foreign key naming a row that does not exist (MySQL 1452). */
export function isMissingReference(error: unknown): boolean {
  const driverError = (error as { driverError?: Record<string, unknown> })?.driverError ?? error;
  const code = (driverError as Record<string, unknown> | undefined)?.code;
  return code === 'ER_NO_REFERENCED_ROW_2' || code === 'ER_NO_REFERENCED_ROW';
}
