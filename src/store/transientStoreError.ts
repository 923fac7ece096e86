const CODES = new Set([
  // Connections that died or could not be made.
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
  // MySQL: the statement was rolled back and may simply be run again. On Galera, 1213 is
  // also how a transaction that lost certification to another node's write ends, at COMMIT
  // or when the other node's write set aborted it here.
  'ER_LOCK_DEADLOCK',
  'ER_LOCK_WAIT_TIMEOUT',
  // None of a URL's hosts took a connection (or accepted writes) just now: a failover.
  'NO_WRITABLE_HOST',
  // PostgreSQL: connection exceptions, too many connections, operator intervention (a
  // server starting up or shutting down), serialization failures.
  '08000',
  '08003',
  '08006',
  '53300',
  '57P01',
  '57P02',
  '57P03',
  '40001',
  '40P01',
  // SQLite: another connection holds the lock (past the busy timeout).
  'SQLITE_BUSY',
  'SQLITE_BUSY_SNAPSHOT',
  'SQLITE_LOCKED',
]);

const ERRNOS = new Set([
  // MariaDB: the connection was killed; the client lost the server.
  1927, 2006, 2013,
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

const MESSAGES = [
  /connection terminated/i,
  /connection is not open/i,
  /server has gone away/i,
  /lost connection/i,
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
  for (let e: unknown = error, depth = 0; e && depth < 4; depth++) {
    const record = e as {
      code?: unknown;
      errno?: unknown;
      message?: unknown;
      driverError?: unknown;
      cause?: unknown;
    };
    if (typeof record.code === 'string' && CODES.has(record.code)) return true;
    if (typeof record.errno === 'number' && ERRNOS.has(record.errno)) return true;
    if (
      typeof record.message === 'string' &&
      MESSAGES.some((m) => m.test(record.message as string))
    )
      return true;
    e = record.driverError ?? record.cause;
  }
  return false;
}
