import { WaymarkError } from './WaymarkError';

/**
 * Another process held the lock under which waymark applies its migrations to this
 * database for longer than the runtime would wait. Nothing was applied (MySQL cannot roll
 * DDL back, so waymark never migrates without the lock); start again once that process is
 * done, or find the session that holds the lock.
 *
 * @example
 * ```ts
 * try { await Waymark.create({ database }); }
 * catch (e) { if (isMigrationLockTimeoutError(e)) console.error(`${e.lock} is held`); }
 * ```
 */
export class MigrationLockTimeoutError extends WaymarkError {
  declare readonly code: 'MIGRATION_LOCK_TIMEOUT';

  constructor(
    /** The database whose migrations are locked. */
    readonly database: string,
    /** The lock, as the database names it, e.g. `GET_LOCK('waymark_migrations:app')`. */
    readonly lock: string,
    /** How long waymark waited for it. */
    readonly waitedMs: number,
  ) {
    super(
      'MIGRATION_LOCK_TIMEOUT',
      `waymark could not migrate database "${database}": another process held the migration ` +
        `lock (${lock}) for more than ${waitedMs} ms; nothing was applied — start again once ` +
        'it is done',
    );
  }
}

/** True when `error` is a {@link MigrationLockTimeoutError}. */
export function isMigrationLockTimeoutError(error: unknown): error is MigrationLockTimeoutError {
  return error instanceof MigrationLockTimeoutError;
}
