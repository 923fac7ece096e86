import type { DataSourceOptions } from 'typeorm';
import { TransactionPoolerError } from '../../errors/TransactionPoolerError';
import { isBehindPgbouncer } from './pgbouncerOption';

/**
 * SQLSTATEs that, for statements waymark prepares itself, mean the server connection is not
 * the one the statement was prepared on: 42P05 duplicate_prepared_statement (`prepared
 * statement "wm_…" already exists`: another client prepared it there) and 26000
 * invalid_sql_statement_name (`prepared statement "wm_…" does not exist`, `unnamed prepared
 * statement does not exist`: it was prepared elsewhere).
 */
const CODES = new Set(['42P05', '26000']);

/**
 * A protocol violation (08P01) naming a prepared statement: another client's statement of
 * that name lives on this server connection. Unnamed (`""`) it is more likely a bug here.
 */
const BIND_MISMATCH =
  /^bind message supplies \d+ parameters?, but prepared statement "[^"]+" requires/;

/**
 * The {@link TransactionPoolerError} for a statement that failed the way statements fail
 * behind a transaction-mode connection pooler (PgBouncer, Supabase, Neon, RDS Proxy), which
 * gives this client's statements to server connections other clients used; undefined for
 * any other error. Looks through TypeORM's `driverError` and `cause`.
 *
 * @example
 * ```ts
 * const error = Object.assign(new Error('prepared statement "wm_1" already exists'), { code: '42P05' });
 * detectTransactionPooler('create run "r1"', error, dataSource.options)?.message;
 * // 'waymark could not create run "r1": PostgreSQL answered "prepared statement …"; … add pgbouncer=true …'
 * ```
 */
export function detectTransactionPooler(
  operation: string,
  error: unknown,
  options: DataSourceOptions,
): TransactionPoolerError | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 4; depth++) {
    const record = e as {
      code?: unknown;
      message?: unknown;
      driverError?: unknown;
      cause?: unknown;
    };
    const message = typeof record.message === 'string' ? record.message : String(record.code);
    if (
      (typeof record.code === 'string' && CODES.has(record.code)) ||
      (record.code === '08P01' && BIND_MISMATCH.test(message))
    ) {
      return new TransactionPoolerError(operation, message, isBehindPgbouncer(options), {
        cause: error,
      });
    }
    e = record.driverError ?? record.cause;
  }
  return undefined;
}
