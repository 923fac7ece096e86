import { DataSource, type DataSourceOptions } from 'typeorm';
import { StoreUnavailableError } from '../errors/StoreUnavailableError';
import { dataSourceOptionsFromUrl, redact } from './DatabaseUrl';
import { dialectOf } from './Dialect';

/** An initialized DataSource, and whether waymark created it (and so must close it). */
export interface OpenedDataSource {
  readonly dataSource: DataSource;
  readonly owned: boolean;
}

/**
 * Opens the database a runtime stores runs in. SQLite files run in WAL mode with
 * `synchronous=NORMAL` (a committed step survives a process crash; an OS crash may lose
 * the last few) unless the options say otherwise.
 */
export async function openDataSource(
  database: string | DataSourceOptions | DataSource,
): Promise<OpenedDataSource> {
  if (database instanceof DataSource) {
    dialectOf(database);
    if (!database.isInitialized) await initialize(database, describe(database.options));
    return { dataSource: database, owned: false };
  }
  const options = typeof database === 'string' ? dataSourceOptionsFromUrl(database) : database;
  const dataSource = new DataSource(withDefaults(options));
  dialectOf(dataSource);
  await initialize(dataSource, typeof database === 'string' ? redact(database) : describe(options));
  return { dataSource, owned: true };
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

async function initialize(dataSource: DataSource, what: string): Promise<void> {
  try {
    await dataSource.initialize();
  } catch (error) {
    throw new StoreUnavailableError(`connect to ${what}`, error);
  }
}

function describe(options: DataSourceOptions): string {
  const o = options as { type: string; host?: string; port?: number; database?: unknown };
  return o.host
    ? `${o.type} at ${o.host}:${o.port ?? ''}/${String(o.database)}`
    : `${o.type} ${String(o.database)}`;
}
