/** Codes of a connection that died or could not be made. */
const LOST_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_CON_COUNT_ERROR',
  'ER_TOO_MANY_USER_CONNECTIONS',
  'ER_SERVER_SHUTDOWN',
  'ER_CONNECTION_KILLED',
  'ER_ACCOUNT_HAS_BEEN_LOCKED',
  // None of a URL's hosts took a connection (or accepted writes) just now: a failover.
  'NO_WRITABLE_HOST',
  // PostgreSQL: connection exceptions, too many connections, operator intervention (a
  // server starting up or shutting down).
  '08000',
  '08003',
  '08006',
  '53300',
  '57P01',
  '57P02',
  '57P03',
]);

const CODES = new Set([
  ...LOST_CODES,
  // MySQL: the statement was rolled back and may simply be run again. On Galera, 1213 is
  // also how a transaction that lost certification to another node's write ends, at COMMIT
  // or when the other node's write set aborted it here.
  'ER_LOCK_DEADLOCK',
  'ER_LOCK_WAIT_TIMEOUT',
  // PostgreSQL: serialization failures.
  '40001',
  '40P01',
  // SQLite: another connection holds the lock (past the busy timeout).
  'SQLITE_BUSY',
  'SQLITE_BUSY_SNAPSHOT',
  'SQLITE_LOCKED',
]);

/** MariaDB: the connection was killed; the client lost the server. */
const LOST_ERRNOS = new Set([1927, 2006, 2013]);

const ERRNOS = new Set([
  ...LOST_ERRNOS,
  // Galera: the node is not (yet, or no longer) part of the cluster's primary component:
  // "WSREP has not yet prepared node for application use". Another node, or this one once
  // it rejoined, takes the statement.
  1047,
  // Galera: "Got error … during COMMIT" when replicating the write set failed (the node
  // lost the cluster mid-commit); the transaction was rolled back.
  1180,
  // The server is shutting down.
  1053,
]);

/**
 * What drivers say of a connection that is gone, including the errors of using one after it
 * died: mysql2's "Can't add new command when connection is in closed state", node-postgres's
 * "Client was closed and is not queryable", TypeORM's released query runner.
 */
const LOST_MESSAGES = [
  /connection terminated/i,
  /connection is not open/i,
  /server has gone away/i,
  /lost connection/i,
  /connection lost/i,
  /connection is in closed state/i,
  /is not queryable/i,
  /query runner already released/i,
  /connection provided by a query runner was already released/i,
];

const MESSAGES = [
  ...LOST_MESSAGES,
  /WSREP has not yet prepared node/i,
  /WSREP detected deadlock\/conflict/i,
  /not currently accepting connections/i,
];

/**
 * Whether a database error is one a retry can outlast: the connection was lost or killed,
 * the server is restarting, a lock or deadlock rolled the statement back. Anything else (a
 * constraint, a syntax error, a value too long) would fail again the same way.
 */
export function isTransientStoreError(error: unknown): boolean {
  return matches(error, CODES, ERRNOS, MESSAGES);
}

/**
 * Whether a database error says the connection it ran on is gone (lost, killed, the server
 * restarting, or used after it died): whatever its transaction did is rolled back, or — when
 * it was lost during COMMIT — committed without an answer. Lock conflicts are not this.
 */
export function isLostConnectionError(error: unknown): boolean {
  return matches(error, LOST_CODES, LOST_ERRNOS, LOST_MESSAGES);
}

/**
 * Whether `error`, or an error it wraps (TypeORM's `driverError`, a `cause`; four deep at
 * most), carries one of these codes, errnos or messages.
 */
export function matches(
  error: unknown,
  codes: ReadonlySet<string>,
  errnos: ReadonlySet<number>,
  messages: readonly RegExp[],
): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 4; depth++) {
    const record = e as {
      code?: unknown;
      errno?: unknown;
      message?: unknown;
      driverError?: unknown;
      cause?: unknown;
    };
    if (typeof record.code === 'string' && codes.has(record.code)) return true;
    if (typeof record.errno === 'number' && errnos.has(record.errno)) return true;
    if (
      typeof record.message === 'string' &&
      messages.some((m) => m.test(record.message as string))
    )
      return true;
    e = record.driverError ?? record.cause;
  }
  return false;
}
