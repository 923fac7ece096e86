import type { DataSourceOptions } from 'typeorm';
import { ConfigurationError } from '../../../errors/ConfigurationError';
import { failoverPgClient } from './failoverPgClient';
import { FailoverMysqlPool, type MysqlModule } from './FailoverMysqlPool';
import type { HostList } from './HostList';
import type { PgClientClass } from './WritableHostFinder';

/**
 * The TypeORM options of a single-host URL, made to connect through a host list: for
 * MySQL/MariaDB a driver whose pool fails over between the hosts ({@link FailoverMysqlPool}),
 * for PostgreSQL a pool whose clients connect to the host that accepts writes
 * ({@link failoverPgClient}). Both plug into what TypeORM already offers (its `driver`
 * option, node-postgres's `Client` pool option), so the rest of waymark sees one ordinary
 * DataSource.
 */
export function withFailover(options: DataSourceOptions, list: HostList): DataSourceOptions {
  const [first] = list.hosts;
  if (options.type === 'mysql' || options.type === 'mariadb') {
    const mysql = load<MysqlModule>('mysql2');
    const driver = Object.create(mysql) as MysqlModule;
    driver.createPool = (poolOptions) => new FailoverMysqlPool(mysql, poolOptions, list.hosts);
    return { ...options, host: first.host, port: first.port, driver };
  }
  if (options.type === 'postgres') {
    const pg = load<{ Client: PgClientClass }>('pg');
    const Client = failoverPgClient(pg.Client, list.hosts, list.targetSessionAttrs);
    return {
      ...options,
      host: first.host,
      port: first.port,
      extra: { ...(options.extra as Record<string, unknown> | undefined), Client },
    };
  }
  throw new ConfigurationError(
    `a host list needs MySQL/MariaDB or PostgreSQL, not ${options.type}`,
  );
}

function load<T>(name: string): T {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require(name) as T;
  } catch (cause) {
    throw new ConfigurationError(
      `a database URL listing several hosts needs the "${name}" package; npm install ${name}`,
      { cause },
    );
  }
}
