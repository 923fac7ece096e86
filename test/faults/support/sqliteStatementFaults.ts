import Database from 'better-sqlite3';
import type { Disposable } from '../../../src/ground/Disposable';

/** An error the SQLite driver raises for a statement, as SQLite itself would. */
export interface SqliteFault {
  readonly code: string;
  readonly message: string;
}

/**
 * Decides, per statement about to run (its SQL and bound parameters), whether it fails
 * instead; undefined runs it.
 */
export type SqliteFaultDecider = (sql: string, params: unknown[]) => SqliteFault | undefined;

const METHODS = ['run', 'all', 'get', 'iterate'] as const;

type Method = (this: { source?: string }, ...args: unknown[]) => unknown;

/**
 * Makes every better-sqlite3 statement of this process ask `decide` before it runs, and
 * throw the `SqliteError` it returns instead of running: a disk that is full, an I/O error,
 * a lock held past the busy timeout — faults SQLite has no connection to cut for. Dispose to
 * let statements run untouched again.
 *
 * @example
 * const faults = injectSqliteFaults((sql) =>
 *   /^COMMIT/.test(sql) ? { code: 'SQLITE_IOERR', message: 'disk I/O error' } : undefined,
 * );
 * faults.dispose();
 */
export function injectSqliteFaults(decide: SqliteFaultDecider): Disposable {
  const probe = new Database(':memory:');
  const proto = Object.getPrototypeOf(probe.prepare('SELECT 1')) as Record<string, Method>;
  probe.close();
  const originals = METHODS.map((name) => [name, proto[name]] as const);
  for (const [name, original] of originals) {
    proto[name] = function (this, ...args) {
      const fault = decide(this.source ?? '', args);
      if (fault) throw new Database.SqliteError(fault.message, fault.code);
      return original.apply(this, args);
    };
  }
  return {
    dispose: () => {
      for (const [name, original] of originals) proto[name] = original;
    },
  };
}
