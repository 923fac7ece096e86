import type { DataSource } from 'typeorm';
import type { Logger } from '../../ground/Logger';

type Client = {
  on(event: 'error', listener: (error: Error) => void): void;
  waymarkGuarded?: boolean;
};
type Pool = { on(event: 'connect', listener: (client: Client) => void): void; _clients?: Client[] };

/** Where each guarded pool reports: the logger of the runtime opened on it last. */
const reportTo = new WeakMap<Pool, Logger>();

/**
 * node-postgres emits 'error' on a pooled client whose connection the server ended while it
 * sat between queries (an admin's `pg_terminate_backend`, a failover); unheard, that event
 * kills the process. The next query on it fails anyway and is retried on a new connection,
 * so the event itself only needs logging, as information: nothing is for a user to do.
 *
 * A pool is guarded once, however many runtimes share its DataSource (the application's own,
 * a test's): a listener per runtime would pile up on the pool (MaxListenersExceededWarning
 * after ten) and outlive the runtimes. The last runtime opened on the pool gets the logs.
 */
export function guardPostgresPool(dataSource: DataSource, logger: Logger): void {
  if (dataSource.options.type !== 'postgres') return;
  const pool = (dataSource.driver as unknown as { master?: Pool }).master;
  if (!pool) return;
  const guarded = reportTo.has(pool);
  reportTo.set(pool, logger);
  if (guarded) return;
  const guard = (client: Client): void => {
    if (client.waymarkGuarded) return;
    client.waymarkGuarded = true;
    client.on('error', (error) =>
      reportTo.get(pool)?.info('a PostgreSQL connection was closed by the server', { error }),
    );
  };
  pool.on('connect', guard);
  for (const client of pool._clients ?? []) guard(client);
}
