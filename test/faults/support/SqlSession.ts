import mysql from 'mysql2/promise';
import { Client } from 'pg';
import type { Dialect } from './createSession';

/** What a statement returned, comparable between runs: rows, or rows affected, or an error. */
export type SqlResult =
  { readonly rows: unknown[] } | { readonly affected: number } | { readonly error: string };

/**
 * One driver connection (`pg` Client or `mysql2/promise`) behind one small interface, so a
 * test can run the same statements on both dialects. SQL uses `?` placeholders.
 */
export interface SqlSession {
  /**
   * As text: PostgreSQL's simple protocol without params, the extended one with unnamed
   * statements with them; MySQL's COM_QUERY (mysql2 interpolates the params).
   */
  query(sql: string, params?: unknown[]): Promise<SqlResult>;
  /** Prepared: a named PostgreSQL statement if `name` is given; mysql2's `execute`. */
  execute(sql: string, params: unknown[], name?: string): Promise<SqlResult>;
  close(): Promise<void>;
}

/** Where to connect, and (PostgreSQL only) whether to pipeline queries. */
export interface SqlTarget {
  readonly dialect: Dialect;
  readonly port: number;
  readonly pipeline?: boolean;
}

/**
 * Connects to `test` on 127.0.0.1:`port` as the test servers' superuser. Errors surface as
 * results (`{ error }`), never as rejections, except a failure to connect.
 */
export async function connectSql(target: SqlTarget): Promise<SqlSession> {
  return target.dialect === 'postgres' ? connectPostgres(target) : connectMysql(target.port);
}

async function connectPostgres({ port, pipeline }: SqlTarget): Promise<SqlSession> {
  const client = new Client({
    host: '127.0.0.1',
    port,
    user: 'postgres',
    database: 'test',
    pipeline: pipeline ?? false,
  });
  // A cut connection is reported to the query; without a listener it would also crash jest.
  client.on('error', () => undefined);
  await client.connect();
  const run = async (config: { text: string; values?: unknown[]; name?: string }) => {
    try {
      const result = await client.query(config);
      return result.command === 'SELECT'
        ? { rows: result.rows }
        : { affected: result.rowCount ?? 0 };
    } catch (error) {
      return { error: errorCode(error) };
    }
  };
  return {
    query: (sql, values) => run({ text: numbered(sql), values }),
    execute: (sql, values, name) => run({ text: numbered(sql), values, name }),
    close: () => client.end(),
  };
}

async function connectMysql(port: number): Promise<SqlSession> {
  const connection = await mysql.createConnection({
    host: '127.0.0.1',
    port,
    user: 'root',
    database: 'test',
  });
  connection.on('error', () => undefined);
  const run = async (call: () => Promise<[unknown, unknown]>): Promise<SqlResult> => {
    try {
      const [result] = await call();
      if (Array.isArray(result)) return { rows: result };
      return { affected: (result as { affectedRows: number }).affectedRows };
    } catch (error) {
      return { error: errorCode(error) };
    }
  };
  return {
    query: (sql, values) => run(() => connection.query(sql, values)),
    execute: (sql, values) => run(() => connection.execute(sql, values as never)),
    close: async () => {
      try {
        await connection.end();
      } catch {
        // Already lost (a cut): nothing left to close.
        connection.destroy();
      }
    },
  };
}

/** `?` placeholders as PostgreSQL's `$1`, `$2`, ... */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

function errorCode(error: unknown): string {
  const { code, message } = error as { code?: unknown; message?: unknown };
  return typeof code === 'string' ? code : String(message);
}
