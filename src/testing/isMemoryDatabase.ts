import { DataSource } from 'typeorm';
import type { RuntimeOptions } from '../runtime/RuntimeOptions';

/** Whether `database` is in-memory SQLite: a new, empty database for each test runtime family. */
export function isMemoryDatabase(database: RuntimeOptions['database']): boolean {
  if (typeof database === 'string') return database === 'sqlite::memory:';
  return (
    !(database instanceof DataSource) &&
    database.type === 'better-sqlite3' &&
    database.database === ':memory:'
  );
}
