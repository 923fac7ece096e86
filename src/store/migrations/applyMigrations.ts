import type { DataSource } from 'typeorm';
import { StoreUnavailableError } from '../../errors/StoreUnavailableError';
import { isDiskFullError } from '../connection/diskFullError';
import { Migrator } from './Migrator';
import { withTransientRetry } from '../connection/retryTransient';

/**
 * Applies waymark's pending migrations (see {@link Migrator}) through an outage of up to
 * `retryTimeoutMs`, as every statement is retried: a migration cut off by a lost connection
 * is looked for again under the lock, as a restarted process would. An outage that lasts
 * longer is a `StoreUnavailableError` saying for how long, and so is a database whose disk
 * is full (it refused a write waymark needs); any other failure is thrown as is.
 *
 * @example
 * ```ts
 * await applyMigrations(dataSource, 30_000); // ['M0005AddForks'], or [] when current
 * ```
 */
export function applyMigrations(dataSource: DataSource, retryTimeoutMs: number): Promise<string[]> {
  const migrator = new Migrator(dataSource);
  const where = `database "${String(dataSource.options.database)}"`;
  return withTransientRetry(() => migrator.migrate(), {
    timeoutMs: retryTimeoutMs,
    giveUp: (error, retriedMs) => {
      const what = `apply waymark's migrations to ${where}`;
      if (retriedMs !== undefined) {
        return new StoreUnavailableError(what, error, { retriedMs, timeoutMs: retryTimeoutMs });
      }
      return isDiskFullError(error) ? new StoreUnavailableError(what, error) : error;
    },
  });
}
