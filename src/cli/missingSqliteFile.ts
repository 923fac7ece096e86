import { existsSync } from 'node:fs';
import { dataSourceOptionsFromUrl } from '../runtime/DatabaseAccess';

/**
 * The path of the SQLite file `url` names when that file does not exist (opening it would
 * create an empty database); undefined for any other URL. A malformed URL throws the
 * `ConfigurationError` of `dataSourceOptionsFromUrl`.
 *
 * @example
 * ```ts
 * missingSqliteFile('sqlite:./nope.db'); // './nope.db'
 * ```
 */
export function missingSqliteFile(url: string): string | undefined {
  const options = dataSourceOptionsFromUrl(url);
  if (options.type !== 'better-sqlite3' || options.database === ':memory:') return undefined;
  return existsSync(options.database) ? undefined : options.database;
}
