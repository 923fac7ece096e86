import type { Command } from 'commander';
import type { DataSource } from 'typeorm';
import { isStoreUnavailableError } from '../../errors/StoreUnavailableError';
import { applyMigrations, openDatabase } from '../../runtime/DatabaseAccess';
import { databaseUrlOf, type CliContext } from '../CliContext';
import { databaseUnavailable } from '../databaseUnavailable';
import { missingSqliteFile } from '../missingSqliteFile';
import { CLI_STORE_RETRY_MS } from '../openRuntime';
import { allMigrationNames, pendingMigrations } from '../pendingMigrations';

/**
 * `waymark migrate`: applies waymark's pending migrations (under a database-wide lock, so
 * several deploys at once apply each one once) and prints their names; `--dry-run` only
 * lists them and writes nothing.
 *
 * @example
 * ```sh
 * waymark migrate --dry-run --db "$DATABASE_URL"
 * ```
 */
export function registerMigrateCommand(program: Command, cli: CliContext): void {
  program
    .command('migrate')
    .description("apply waymark's pending database migrations")
    .option('--dry-run', 'list the pending migrations without applying them')
    .action(async (options: { dryRun?: boolean }, command: Command) => {
      const url = databaseUrlOf(command, cli.env);
      const names = options.dryRun ? await listPending(url) : await applyPending(url);
      const verb = options.dryRun ? 'pending' : 'applied';
      for (const name of names) cli.output.line(`${verb}  ${name}`);
      if (names.length === 0) cli.output.line('nothing to apply: the schema is up to date');
    });
}

async function listPending(url: string): Promise<string[]> {
  // Opening a SQLite file that is not there would create it: a dry run writes nothing.
  if (missingSqliteFile(url) !== undefined) return allMigrationNames();
  return withDataSource(url, pendingMigrations);
}

function applyPending(url: string): Promise<string[]> {
  return withDataSource(url, (dataSource) => applyMigrations(dataSource, CLI_STORE_RETRY_MS));
}

/** `work` on the database at `url`; one it cannot reach, or that cannot take writes, is exit code 3. */
async function withDataSource<T>(url: string, work: (ds: DataSource) => Promise<T>): Promise<T> {
  try {
    const { dataSource } = await openDatabase(url, { retryTimeoutMs: CLI_STORE_RETRY_MS });
    try {
      return await work(dataSource);
    } finally {
      await dataSource.destroy();
    }
  } catch (error) {
    throw isStoreUnavailableError(error) ? databaseUnavailable(url, error) : error;
  }
}
