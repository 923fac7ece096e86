import type { DataSourceOptions } from 'typeorm';
import { ConfigurationError } from '../../../errors/ConfigurationError';

const SQLITE_SYNCHRONOUS = ['normal', 'full'] as const;

/**
 * Options for `sqlite:<file>[?synchronous=normal|full]` (NORMAL, the default, or FULL
 * durability), `sqlite:///absolute/path.db` and `sqlite::memory:`. `sqlite://<file>` is refused:
 * what follows `//` is a URL's host, so it cannot name a relative file.
 */
export function sqliteUrlOptions(url: string): DataSourceOptions {
  const [location, query = ''] = url.slice('sqlite:'.length).split('?', 2) as [string, string?];
  if (location.startsWith('//') && !location.startsWith('///')) {
    // `sqlite://waymark.db` is the form other tools take for a relative file, but a URL reads
    // what follows `//` as a host: it would open `/waymark.db` at the filesystem's root.
    const file = location.slice(2);
    throw new ConfigurationError(
      `database URL "${url}" puts "${file}" where a URL has its host; ` +
        `write 'sqlite:${file}' for a file relative to the working directory, or ` +
        `'sqlite:///absolute/path.db' (three slashes) for an absolute one`,
    );
  }
  const path = location.replace(/^\/\/(?=\/)/, '');
  if (path === '') {
    throw new ConfigurationError(
      `database URL "${url}" names no file; use 'sqlite:./waymark.db' or 'sqlite::memory:'`,
    );
  }
  const params = new URLSearchParams(query);
  for (const key of params.keys()) {
    if (key !== 'synchronous') {
      throw new ConfigurationError(
        `database URL "${url}" has unknown parameter "${key}"; a SQLite URL takes only ?synchronous=normal|full`,
      );
    }
  }
  const synchronous = params.get('synchronous')?.toLowerCase();
  if (synchronous === null || synchronous === undefined) {
    return { type: 'better-sqlite3', database: path };
  }
  if (!(SQLITE_SYNCHRONOUS as readonly string[]).includes(synchronous)) {
    throw new ConfigurationError(
      `database URL "${url}" has synchronous=${params.get('synchronous')}; expected normal or full`,
    );
  }
  const pragma = `synchronous = ${synchronous.toUpperCase()}`;
  return {
    type: 'better-sqlite3',
    database: path,
    prepareDatabase: (db: { pragma(sql: string): unknown }) => {
      db.pragma(pragma);
    },
  };
}
