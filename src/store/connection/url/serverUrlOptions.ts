import type { DataSourceOptions } from 'typeorm';
import { ConfigurationError } from '../../../errors/ConfigurationError';
import { MYSQL_TLS_PARAMETERS, mysqlTlsRequest } from './mysqlTlsRequest';
import { PGBOUNCER } from '../pgbouncerOption';
import { POSTGRES_TLS_PARAMETERS, postgresTlsRequest } from './postgresTlsRequest';
import { describeServerUrl, parseServerUrl } from './ServerUrl';
import { assertCoherent, driverTls, type TlsRequest } from './TlsRequest';
import { UrlParameters } from './UrlParameters';

/** A MySQL/MariaDB or PostgreSQL URL turned into what opening it takes. */
export interface ServerUrlOptions {
  readonly options: DataSourceOptions;
  /** The URL as it may be shown: password and unknown parameters' values as `***`. */
  readonly shown: string;
  /** The TLS the URL asked for, if any. */
  readonly tls?: TlsRequest;
  /** With `prefer`: the same options without TLS, for a server that offers none. */
  readonly withoutTls?: DataSourceOptions;
}

const DIALECTS = {
  mysql: {
    port: 3306,
    parameters: [...MYSQL_TLS_PARAMETERS, 'poolSize'],
    spellings: MYSQL_TLS_PARAMETERS.map((p) => p.replace('-', '_')),
    readTls: mysqlTlsRequest,
    options: { charset: 'utf8mb4_general_ci' },
  },
  postgres: {
    port: 5432,
    parameters: [...POSTGRES_TLS_PARAMETERS, 'poolSize', PGBOUNCER],
    spellings: [],
    readTls: postgresTlsRequest,
    // One connection stays open: above `min`, node-postgres's pool arms an idle timer on
    // every release, which is every checkpoint.
    options: { extra: { min: 1 } },
  },
} as const;

/**
 * Options for a `mysql://` (or `mariadb://`) or `postgres://` (or `postgresql://`) URL.
 * Parameters: the TLS ones (see {@link postgresTlsRequest}, {@link mysqlTlsRequest}),
 * `poolSize`, and for PostgreSQL `pgbouncer=true|false` (a transaction-mode pooler in between:
 * recorded as `extra.pgbouncer`, read by `isBehindPgbouncer`); a host list's
 * `target_session_attrs` is read by `parseHostList`. Any other is refused by name.
 */
export function serverUrlOptions(text: string, type: 'mysql' | 'postgres'): ServerUrlOptions {
  const dialect = DIALECTS[type];
  const url = parseServerUrl(text, dialect.port);
  const shown = describeServerUrl(url, shownParameters(type));
  if (url.hosts.length > 1) {
    throw new ConfigurationError(
      `database URL "${shown}" lists ${url.hosts.length} hosts; read through parseHostList, which connects to each in turn`,
    );
  }
  const params = new UrlParameters(url.parameters, shown);
  const tls = dialect.readTls(params, shown);
  if (tls) assertCoherent(tls, shown);
  const poolSize = params.take('poolSize');
  if (poolSize && !/^[1-9]\d{0,3}$/.test(poolSize.value)) {
    throw params.invalid(
      'poolSize',
      poolSize.value,
      'a whole number of connections from 1 to 9999',
    );
  }
  const pgbouncer = takePgbouncer(params, type, shown);
  params.assertAllRead(dialect.parameters);

  const [{ host, port }] = url.hosts;
  const base = {
    type,
    host,
    port,
    username: url.username,
    password: url.password,
    database: url.database,
    ...(poolSize ? { poolSize: Number(poolSize.value) } : {}),
    ...dialect.options,
    ...(pgbouncer ? { extra: { ...DIALECTS.postgres.options.extra, [PGBOUNCER]: true } } : {}),
  } as DataSourceOptions;
  if (!tls) return { options: base, shown };
  const options = { ...base, ssl: driverTls(tls, type) } as DataSourceOptions;
  return tls.mode === 'prefer'
    ? { options, shown, tls, withoutTls: base }
    : { options, shown, tls };
}

/** `pgbouncer=true|false`, which only a PostgreSQL URL takes. */
function takePgbouncer(params: UrlParameters, type: 'mysql' | 'postgres', shown: string): boolean {
  if (type === 'mysql' && params.take(PGBOUNCER)) {
    throw new ConfigurationError(
      `database URL "${shown}" has ${PGBOUNCER}, a PostgreSQL parameter (it tells waymark a ` +
        'transaction-mode pooler such as PgBouncer stands before PostgreSQL); a mysql:// URL does not take it',
    );
  }
  return params.takeFlag(PGBOUNCER)?.on ?? false;
}

/** How a server URL that parses may be shown, whatever its parameters say. */
export function shownServerUrl(text: string, type: 'mysql' | 'postgres'): string {
  return describeServerUrl(parseServerUrl(text, DIALECTS[type].port), shownParameters(type));
}

/** Parameters whose values are shown in messages: the known ones, none of them secret. */
function shownParameters(type: 'mysql' | 'postgres'): ReadonlySet<string> {
  return new Set([...DIALECTS[type].parameters, ...DIALECTS[type].spellings]);
}
