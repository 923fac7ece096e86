import type { DialectName } from './connection/Dialect';

/**
 * The database server's clock, in epoch milliseconds, as a SQL expression: the one clock
 * every worker shares. Leases are written and judged by it, so a worker whose own clock runs
 * minutes ahead or behind neither takes live runs nor loses its own.
 *
 * - PostgreSQL: `clock_timestamp()`, the time now (`now()` is the transaction's start).
 * - MySQL/MariaDB: the UTC wall clock counted from 1970; `UNIX_TIMESTAMP(NOW(3))` would read
 *   the session's time zone and be an hour off in the hour a daylight-saving change repeats.
 * - SQLite: the host's clock (`'now'`), one clock for the one host a file lives on; the
 *   runtime's injected clock never enters it.
 */
export function serverNowSql(dialect: DialectName): string {
  switch (dialect) {
    case 'postgres':
      return '(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::bigint';
    case 'mysql':
      return "(TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000)";
    case 'sqlite':
      return "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)";
  }
}

/** `now + ms` on the server's clock, with `ms` as the one parameter (null gives NULL). */
export function serverTimeAfterSql(dialect: DialectName): string {
  return `(${serverNowSql(dialect)} + ?)`;
}
