import { ConfigurationError } from '../errors/ConfigurationError';
import type { TestRuntimeOptions } from './createTestRuntime';
import { isMemoryDatabase } from './isMemoryDatabase';

type Database = NonNullable<TestRuntimeOptions['database']>;

/**
 * The database of {@link crashMatrix}'s cases: in-memory SQLite (the default, new for every
 * case), or a function called once per case that returns a fresh one.
 */
export type CrashMatrixDatabase =
  | NonNullable<TestRuntimeOptions['database']>
  | (() =>
      | NonNullable<TestRuntimeOptions['database']>
      | Promise<NonNullable<TestRuntimeOptions['database']>>);

/**
 * Gives each case its own database. A fixed file or server database is refused: every case
 * would find the run the previous one finished, execute nothing, and pass.
 */
export function freshDatabases(
  option: CrashMatrixDatabase | undefined,
  where: string,
): () => Promise<Database | undefined> {
  if (option === undefined) return () => Promise.resolve(undefined);
  if (typeof option === 'function') return async () => option();
  if (isMemoryDatabase(option)) return () => Promise.resolve(option);
  const shown = typeof option === 'string' ? `"${option}"` : 'this DataSource';
  throw new ConfigurationError(
    `${where}: runtime.database ${shown} would be shared by every crash case, and a case that ` +
      'finds the run already finished tests nothing. Pass a function that returns a fresh ' +
      'database for each case (runtime: { database: () => freshDatabaseUrl() }), or leave ' +
      'database out for a new in-memory SQLite database per case',
  );
}
