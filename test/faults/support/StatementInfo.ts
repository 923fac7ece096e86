/**
 * What a client statement does, from its first SQL keyword. `begin` covers `BEGIN` and
 * `START TRANSACTION`, `commit` covers `COMMIT` and `END`, `rollback` covers `ROLLBACK` and
 * `ABORT` but not `ROLLBACK TO SAVEPOINT`, which leaves the transaction open (`other`).
 */
export type StatementKind =
  'select' | 'insert' | 'update' | 'delete' | 'begin' | 'commit' | 'rollback' | 'other';

/**
 * How the statement reached the server: as text (PostgreSQL 'Q', MySQL COM_QUERY), as a
 * prepare that runs nothing (a PostgreSQL batch with a Parse and no Execute, MySQL
 * COM_STMT_PREPARE), or as an execution (a PostgreSQL batch with an Execute, MySQL
 * COM_STMT_EXECUTE).
 */
export type StatementCommand = 'query' | 'prepare' | 'execute';

/**
 * Where the session stands after a statement, as the server reported it: PostgreSQL's
 * ReadyForQuery byte ('I', 'T', 'E'), MySQL's SERVER_STATUS_IN_TRANS flag (never `failed`).
 * `unknown` when the reply carries no status: a MySQL ERR packet.
 */
export type TransactionStatus = 'idle' | 'transaction' | 'failed' | 'unknown';

/** One client statement, as the proxy's decision functions see it before the server does. */
export interface StatementInfo {
  /** The proxied connection it came on, numbered from 1 in the order they were accepted. */
  readonly connectionId: number;
  /** Its place among every statement this proxy has seen, from 1. */
  readonly ordinal: number;
  /** Its place among its connection's statements, from 1. */
  readonly sequence: number;
  readonly command: StatementCommand;
  readonly kind: StatementKind;
  /**
   * The SQL text; for an execution, the text it was prepared from (PostgreSQL: named or
   * unnamed statement; MySQL: statement id). Empty when the proxy never saw the prepare.
   */
  readonly sql: string;
  /** Whether the session was inside a transaction before it, as the server last reported. */
  readonly inTransaction: boolean;
}

/** The server has finished a statement; its reply has not reached the client yet. */
export interface Completion {
  readonly statement: StatementInfo;
  /** Where the session stands now: `idle` after a write means it has been committed. */
  readonly status: TransactionStatus;
  /** Whether the server answered with an error. */
  readonly error: boolean;
  /**
   * A short account of the reply: PostgreSQL's last CommandComplete tag (`INSERT 0 1`,
   * `COMMIT`, or `ROLLBACK` for a COMMIT of a failed transaction) or `ERROR <sqlstate>`;
   * MySQL's `OK <affected rows>`, `ROWS` (a result set) or `ERROR <errno>`.
   */
  readonly tag: string;
}
