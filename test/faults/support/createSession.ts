import { MysqlSession } from './mysql/MysqlSession';
import { PgSession } from './pg/PgSession';
import type { OpenStatement, WireSession } from './WireSession';

/** The wire protocols a fault proxy reads; MariaDB speaks `mysql`. */
export type Dialect = 'postgres' | 'mysql';

/** A reader of `dialect`'s protocol for one new connection. */
export function createSession(dialect: Dialect, open: OpenStatement): WireSession {
  return dialect === 'postgres' ? new PgSession(open) : new MysqlSession(open);
}
