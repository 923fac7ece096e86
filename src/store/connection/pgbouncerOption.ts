import type { DataSourceOptions } from 'typeorm';
import { ConfigurationError } from '../../errors/ConfigurationError';

/**
 * The name of the flag, in a URL (`?pgbouncer=true`, as Prisma spells it) and in a
 * DataSource's `extra` options (`extra: { pgbouncer: true }`), that says PostgreSQL is reached
 * through a transaction-mode pooler: PgBouncer with `pool_mode = transaction`, Supabase's
 * pooler on port 6543, Neon's `-pooler` host, RDS Proxy. node-postgres, which receives
 * `extra`, ignores the key.
 */
export const PGBOUNCER = 'pgbouncer';

/**
 * Whether a DataSource's options say it talks to PostgreSQL through a transaction-mode
 * pooler, so that nothing may rely on a session outliving one transaction: statements go
 * unnamed and the migration lock is held by the migration's own transaction. A value other
 * than a boolean is a {@link ConfigurationError}.
 *
 * @example
 * ```ts
 * isBehindPgbouncer(dataSourceOptionsFromUrl('postgres://u@pooler:6543/app?pgbouncer=true')); // true
 * isBehindPgbouncer({ type: 'postgres', extra: { pgbouncer: true } }); // true
 * ```
 */
export function isBehindPgbouncer(options: DataSourceOptions): boolean {
  if (options.type !== 'postgres') return false;
  const value = (options.extra as Record<string, unknown> | undefined)?.[PGBOUNCER];
  if (value === undefined || typeof value === 'boolean') return value === true;
  // A string from the environment ('false' included) must not silently mean either.
  throw new ConfigurationError(
    `the DataSource option extra.${PGBOUNCER} must be true or false, got ${JSON.stringify(value)}`,
  );
}
