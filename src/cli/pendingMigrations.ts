import type { DataSource } from 'typeorm';
import { Migrator, waymarkMigrations } from '../migrations';
import { shownDatabaseUrl } from '../runtime/DatabaseAccess';
import { CliError } from './CliError';
import { ExitCode } from './ExitCode';

const BOOKKEEPING_TABLE = 'waymark_migrations';

/**
 * Names of waymark's migrations not yet applied to `dataSource`, oldest first, without
 * writing anything (not even waymark's bookkeeping table).
 *
 * @example
 * ```ts
 * await pendingMigrations(dataSource); // ['M0005AddForks']
 * ```
 */
export async function pendingMigrations(dataSource: DataSource): Promise<string[]> {
  const runner = dataSource.createQueryRunner();
  let tracked: boolean;
  try {
    tracked = await runner.hasTable(BOOKKEEPING_TABLE);
  } finally {
    await runner.release();
  }
  if (!tracked) return allMigrationNames();
  // The bookkeeping table exists, so `pending()` only reads.
  return new Migrator(dataSource).pending();
}

/**
 * Refuses a database whose waymark tables are missing or behind this version of waymark:
 * the commands that only read or act on runs never migrate it themselves.
 */
export async function assertMigrated(dataSource: DataSource, url: string): Promise<void> {
  const pending = await pendingMigrations(dataSource);
  if (pending.length === 0) return;
  const where = `database ${shownDatabaseUrl(url)}`;
  const problem =
    pending.length === waymarkMigrations.length
      ? `${where} has no waymark tables`
      : `${where} lacks waymark migrations ${pending.join(', ')}`;
  throw new CliError(`${problem}; run \`waymark migrate\` first`, ExitCode.Unavailable);
}

/** Every waymark migration's name, oldest first: all are pending on an empty database. */
export function allMigrationNames(): string[] {
  return waymarkMigrations.map((M) => new M().name ?? M.name);
}
