import { matches } from './transientStoreError';

const CODES = new Set([
  // SQLite: "database or disk is full" (also a file at its max_page_count).
  'SQLITE_FULL',
  // MySQL/MariaDB: the disk is full (1021); a table cannot grow (1114, InnoDB on a full disk).
  'ER_DISK_FULL',
  'ER_RECORD_FILE_FULL',
  // PostgreSQL: disk_full.
  '53100',
]);

const ERRNOS = new Set([1021, 1114]);

/** The OS's ENOSPC, as MariaDB quotes it ("Errcode: 28 "No space left on device""). */
const NO_SPACE = /No space left on device/i;

/**
 * Whether a database error says it cannot take writes because its disk is full (or a table
 * cannot grow any more): not an outage a retry outlasts soon, and not a bug in the statement.
 */
export function isDiskFullError(error: unknown): boolean {
  return matches(error, CODES, ERRNOS, [NO_SPACE]);
}
