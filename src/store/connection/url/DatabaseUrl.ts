import type { DataSourceOptions } from 'typeorm';
import { ConfigurationError } from '../../../errors/ConfigurationError';
import { parseHostList } from '../failover/HostList';
import { withFailover } from '../failover/withFailover';
import { maskUnparsed } from './ServerUrl';
import { serverUrlOptions, shownServerUrl, type ServerUrlOptions } from './serverUrlOptions';
import { sqliteUrlOptions } from './sqliteUrlOptions';

const FORMS =
  "'sqlite:./waymark.db', 'sqlite::memory:', 'mysql://user:pass@host:3306/db' " +
  "(or mariadb://) or 'postgres://user:pass@host:5432/db'";

/** A database URL turned into TypeORM options, and how the URL may be shown. */
export type ParsedDatabaseUrl = ServerUrlOptions;

/**
 * Turns a database URL into TypeORM options. Passwords never appear in error messages.
 * Server URLs accept the TLS parameters of libpq (`sslmode`, …) or of the `mysql` client
 * (`ssl-mode`, …) and `poolSize`; PostgreSQL URLs also `pgbouncer=true` (a transaction-mode
 * pooler in between: it becomes `extra: { pgbouncer: true }`). Any other parameter is
 * refused by name.
 *
 * @example
 * ```ts
 * dataSourceOptionsFromUrl('mysql://root@127.0.0.1:3306/test');
 * dataSourceOptionsFromUrl('postgres://app:pw@db:5432/app?sslmode=verify-full&sslrootcert=ca.pem');
 * dataSourceOptionsFromUrl('postgres://app:pw@pooler:6543/app?pgbouncer=true');
 * ```
 */
export function dataSourceOptionsFromUrl(url: string): DataSourceOptions {
  return parseDatabaseUrl(url).options;
}

/** @internal {@link dataSourceOptionsFromUrl}, with the shown form and the TLS asked for. */
export function parseDatabaseUrl(url: string): ParsedDatabaseUrl {
  if (typeof url !== 'string' || url.trim() === '') {
    throw new ConfigurationError(`database URL is empty; expected one of ${FORMS}`);
  }
  if (url.startsWith('sqlite:')) return { options: sqliteUrlOptions(url), shown: url };
  const scheme = schemeOf(url);
  if (scheme === undefined) {
    throw new ConfigurationError(
      `database URL is malformed: it does not start with a scheme such as "postgres:"; expected ${FORMS}`,
    );
  }
  const type = serverType(url);
  if (type !== undefined) {
    // Several hosts (libpq's form): the first one's URL carries credentials and parameters.
    const hosts = parseHostList(url);
    const parsed = serverUrlOptions(hosts?.url ?? url, type);
    if (!hosts) return parsed;
    return { ...parsed, options: withFailover(parsed.options, hosts), shown: redact(url) };
  }
  throw new ConfigurationError(
    `database URL "${maskUnparsed(url)}" has unsupported scheme "${scheme}:"; expected ${FORMS}`,
  );
}

/**
 * The URL as it may appear in messages and logs: the password replaced by `***`; when the
 * URL cannot be parsed, everything that could be a credential replaced by `***`.
 *
 * @example
 * ```ts
 * redact('mysql://root:S3cr3t@db:3306/app'); // 'mysql://root:***@db:3306/app'
 * ```
 */
export function redact(url: string): string {
  if (typeof url !== 'string') return '***';
  if (url.startsWith('sqlite:')) return url;
  const type = serverType(url);
  try {
    return type === undefined ? maskUnparsed(url) : shownServerUrl(url, type);
  } catch {
    return maskUnparsed(url);
  }
}

function schemeOf(url: string): string | undefined {
  return /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(url)?.[1].toLowerCase();
}

function serverType(url: string): 'mysql' | 'postgres' | undefined {
  const scheme = schemeOf(url);
  if (scheme === 'mysql' || scheme === 'mariadb') return 'mysql';
  if (scheme === 'postgres' || scheme === 'postgresql') return 'postgres';
  return undefined;
}
