import { brand, hasBrand } from './brand';
import { WaymarkError } from './WaymarkError';

const POOLERS =
  'a transaction-mode pooler (PgBouncer with pool_mode = transaction, Supabase on port 6543, ' +
  "Neon's -pooler host, RDS Proxy)";

/**
 * PostgreSQL answered the way it answers when a connection pooler in transaction mode stands
 * between waymark and the server: a statement named on one server connection was sent to
 * another (`prepared statement "wm_…" does not exist`, `… already exists`,
 * `bind message supplies …`), or the migration lock was released on a session that never
 * took it. The
 * database is up; the URL is missing `?pgbouncer=true` (a DataSource: `extra: { pgbouncer: true }`),
 * and the message says so. Like an outage, it leaves the run as it was, resumable once the
 * URL is fixed, and records nothing as its outcome.
 *
 * @example
 * ```ts
 * try { await runtime.run(Agent, 'answer', [question]); }
 * catch (e) { if (isTransactionPoolerError(e)) console.error(e.message); } // names pgbouncer=true
 * ```
 */
export class TransactionPoolerError extends WaymarkError {
  declare readonly code: 'TRANSACTION_POOLER';

  constructor(
    /** What waymark was doing, e.g. `create run "po-1"`. */
    readonly operation: string,
    /** What PostgreSQL answered, e.g. `prepared statement "wm_3acd2d4ff4984ab2" already exists`. */
    readonly answer: string,
    /** Whether the DataSource already had `pgbouncer` on (then the pooler is not in transaction mode). */
    readonly pgbouncer: boolean,
    options: { cause?: unknown } = {},
  ) {
    super(
      'TRANSACTION_POOLER',
      `waymark could not ${operation}: ${answer}. ` +
        (pgbouncer
          ? 'Yet with pgbouncer=true waymark names no statements: the pooler in between does ' +
            'not keep a transaction on one server connection (pool_mode = statement?); waymark ' +
            'needs pool_mode = transaction or session'
          : `That is the sign of ${POOLERS} handing this client's statements to server ` +
            'connections that other clients used: add pgbouncer=true to the database URL ' +
            '(postgres://…/db?pgbouncer=true), or extra: { pgbouncer: true } to your DataSource options'),
      options,
    );
  }
}

brand(TransactionPoolerError, 'TransactionPoolerError');

/** True when `error` is a {@link TransactionPoolerError}. */
export function isTransactionPoolerError(error: unknown): error is TransactionPoolerError {
  return hasBrand(error, 'TransactionPoolerError');
}
