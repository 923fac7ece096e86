import type { DataSourceOptions } from 'typeorm';
import { ConfigurationError } from '../errors/ConfigurationError';
import { parseHostList } from './failover/HostList';
import { withFailover } from './failover/withFailover';

const FORMS =
  "'sqlite:./waymark.db', 'sqlite::memory:', 'mysql://user:pass@host:3306/db' " +
  "(or mariadb://) or 'postgres://user:pass@host:5432/db'";

/**
 * Turns a database URL into TypeORM options. Passwords never appear in error messages.
 *
 * @example
 * ```ts
 * dataSourceOptionsFromUrl('mysql://root@127.0.0.1:3306/test');
 * ```
 */
export function dataSourceOptionsFromUrl(url: string): DataSourceOptions {
  if (typeof url !== 'string' || url.trim() === '') {
    throw new ConfigurationError(`database URL is empty; expected one of ${FORMS}`);
  }
  if (url.startsWith('sqlite:')) return sqliteOptions(url);
  const hostList = parseHostList(url);
  const hosts = (options: DataSourceOptions): DataSourceOptions =>
    hostList ? withFailover(options, hostList) : options;
  let parsed: URL;
  try {
    parsed = new URL(hostList?.url ?? url);
  } catch (cause) {
    throw new ConfigurationError(`database URL "${redact(url)}" is malformed; expected ${FORMS}`, {
      cause,
    });
  }
  const scheme = parsed.protocol.replace(/:$/, '');
  if (scheme === 'mysql' || scheme === 'mariadb')
    return hosts(serverOptions(parsed, 'mysql', 3306));
  if (scheme === 'postgres' || scheme === 'postgresql')
    return hosts(serverOptions(parsed, 'postgres', 5432));
  throw new ConfigurationError(
    `database URL "${redact(url)}" has unsupported scheme "${scheme}:"; expected ${FORMS}`,
  );
}

const SQLITE_SYNCHRONOUS = ['normal', 'full'] as const;

/** `sqlite:<file>[?synchronous=normal|full]`; NORMAL (the default) or FULL durability. */
function sqliteOptions(url: string): DataSourceOptions {
  const [location, query = ''] = url.slice('sqlite:'.length).split('?', 2) as [string, string?];
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

function serverOptions(
  url: URL,
  type: 'mysql' | 'postgres',
  defaultPort: number,
): DataSourceOptions {
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  if (!url.hostname || !database) {
    throw new ConfigurationError(
      `database URL "${redact(url.href)}" must name a host and a database, e.g. ${type}://user@127.0.0.1:${defaultPort}/app`,
    );
  }
  const poolSize = url.searchParams.get('poolSize');
  const base = {
    host: url.hostname,
    port: url.port ? Number(url.port) : defaultPort,
    username: decodeURIComponent(url.username) || undefined,
    password: decodeURIComponent(url.password) || undefined,
    database,
    ...(poolSize ? { poolSize: Number(poolSize) } : {}),
  };
  return type === 'mysql' ? { type, ...base, charset: 'utf8mb4_general_ci' } : { type, ...base };
}

/** The URL with any password replaced by `***`, for messages and logs. */
export function redact(url: string): string {
  return url.replace(/(\/\/[^:/@]*:)[^@]*@/, '$1***@');
}
