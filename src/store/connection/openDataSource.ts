import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { DataSource, DataSourceOptions } from 'typeorm';
import { ConfigurationError } from '../../errors/ConfigurationError';
import { StoreUnavailableError } from '../../errors/StoreUnavailableError';
import { parseDatabaseUrl } from './url/DatabaseUrl';
import { dialectOf } from './Dialect';
import { withTransientRetry } from './retryTransient';
import { isDataSource, typeorm } from './typeormModule';

/** An initialized DataSource, and whether waymark created it (and so must close it). */
export interface OpenedDataSource {
  readonly dataSource: DataSource;
  readonly owned: boolean;
}

/** How {@link openDataSource} connects. */
export interface OpenOptions {
  /**
   * How long to keep trying through an outage (a refused or lost connection, a server
   * starting up, too many connections) before a `StoreUnavailableError` that says so: the
   * runtime's `storeRetryTimeout`. Other failures (a wrong password, an unknown database)
   * are thrown at once.
   */
  readonly retryTimeoutMs: number;
}

/**
 * Opens the database a runtime stores runs in. SQLite files run in WAL mode with
 * `synchronous=NORMAL` (a committed step survives a process crash; an OS crash may lose
 * the last few) unless the options say otherwise. A URL's password never appears in the
 * errors; a URL that asks for TLS gets it or an error that says so.
 */
export async function openDataSource(
  database: string | DataSourceOptions | DataSource,
  options: OpenOptions,
): Promise<OpenedDataSource> {
  const { retryTimeoutMs } = options;
  if (isDataSource(database)) {
    dialectOf(database);
    if (!database.isInitialized) {
      await initialize(database, describe(database.options), retryTimeoutMs);
    }
    return { dataSource: database, owned: false };
  }
  if (typeof database !== 'string') {
    return { dataSource: await open(database, describe(database), retryTimeoutMs), owned: true };
  }
  const url = parseDatabaseUrl(database);
  assertSqliteFolder(url.options);
  if (!url.tls || url.tls.mode === 'disable') {
    return { dataSource: await open(url.options, url.shown, retryTimeoutMs), owned: true };
  }
  const what = `${url.shown} over TLS (${url.tls.asked})`;
  try {
    return { dataSource: await open(url.options, what, retryTimeoutMs), owned: true };
  } catch (error) {
    // `prefer` (libpq) and PREFERRED (MySQL): cleartext when the server offers no TLS.
    if (!url.withoutTls || !offersNoTls(error)) throw error;
    return { dataSource: await open(url.withoutTls, url.shown, retryTimeoutMs), owned: true };
  }
}

async function open(
  options: DataSourceOptions,
  what: string,
  retryTimeoutMs: number,
): Promise<DataSource> {
  const dataSource = new (typeorm().DataSource)(withDefaults(options));
  dialectOf(dataSource);
  await initialize(dataSource, what, retryTimeoutMs);
  return dataSource;
}

/**
 * TypeORM creates a SQLite file's missing folders; from a URL, a missing folder is more
 * likely a typo (or an unmounted volume) than a wish.
 */
function assertSqliteFolder(options: DataSourceOptions): void {
  if (options.type !== 'better-sqlite3' || options.database === ':memory:') return;
  const folder = dirname(options.database);
  if (!existsSync(folder)) {
    throw new ConfigurationError(
      `the folder ${folder} of SQLite database ${options.database} does not exist; create it first`,
    );
  }
}

function withDefaults(options: DataSourceOptions): DataSourceOptions {
  if (options.type !== 'better-sqlite3') return { synchronize: false, ...options };
  const memory = options.database === ':memory:';
  return {
    synchronize: false,
    enableWAL: !memory,
    timeout: 10_000,
    prepareDatabase: (db: { pragma(sql: string): unknown }) => {
      db.pragma('synchronous = NORMAL');
    },
    ...options,
  };
}

/**
 * Connects, through an outage as every statement does. A failed `initialize()` leaves the
 * DataSource uninitialized (TypeORM destroys what it had opened), so it is tried again as is.
 */
async function initialize(dataSource: DataSource, what: string, timeoutMs: number): Promise<void> {
  await withTransientRetry(() => dataSource.initialize(), {
    timeoutMs,
    giveUp: (error, retriedMs) =>
      new StoreUnavailableError(
        `connect to ${what}`,
        error,
        retriedMs === undefined ? undefined : { retriedMs, timeoutMs },
      ),
  });
}

/** The server answered that it does not speak TLS (pg and mysql2 say so in these words). */
function offersNoTls(error: unknown): boolean {
  const cause = (error as { cause?: { message?: unknown; code?: unknown } }).cause;
  return (
    cause?.code === 'HANDSHAKE_NO_SSL_SUPPORT' ||
    cause?.message === 'The server does not support SSL connections'
  );
}

function describe(options: DataSourceOptions): string {
  const o = options as { type: string; host?: string; port?: number; database?: unknown };
  return o.host
    ? `${o.type} at ${o.host}:${o.port ?? ''}/${String(o.database)}`
    : `${o.type} ${String(o.database)}`;
}
