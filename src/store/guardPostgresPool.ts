import type { DataSource } from 'typeorm';
import type { Logger } from '../ground/Logger';

type Client = {
  on(event: 'error', listener: (error: Error) => void): void;
  waymarkGuarded?: boolean;
};
type Pool = { on(event: 'connect', listener: (client: Client) => void): void; _clients?: Client[] };

/**
 * node-postgres emits 'error' on a pooled client whose connection the server ended while it
 * sat between queries (an admin's `pg_terminate_backend`, a failover); unheard, that event
 * kills the process. The next query on it fails anyway and is retried on a new connection,
 * so the event itself only needs logging.
 */
export function guardPostgresPool(dataSource: DataSource, logger: Logger): void {
  if (dataSource.options.type !== 'postgres') return;
  const pool = (dataSource.driver as unknown as { master?: Pool }).master;
  if (!pool) return;
  const guard = (client: Client): void => {
    if (client.waymarkGuarded) return;
    client.waymarkGuarded = true;
    client.on('error', (error) =>
      logger.warn('a PostgreSQL connection was closed by the server', { error }),
    );
  };
  pool.on('connect', guard);
  for (const client of pool._clients ?? []) guard(client);
}
