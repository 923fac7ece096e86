/**
 * Counts SQL statements by wrapping the drivers in this process: better-sqlite3's prepared
 * statements (run/all/get/iterate) and `exec`, `pg`'s `Client.prototype.query` (which every
 * `Pool` query goes through), and mysql2's `query`/`execute` on every connection. waymark,
 * its TypeORM DataSource, the floors and the peers all load the same copy of each driver
 * (bench/package.json links `pg` and `better-sqlite3` to the root's), so one wrapper sees
 * everyone.
 */
import Database from 'better-sqlite3';

export type StatementKind = 'read' | 'write' | 'tx' | 'other';

export interface StatementCounts {
  read: number;
  write: number;
  tx: number;
  other: number;
}

/** Counts by channel: `sqlite:<file>`, `pg:<database>` or `mysql:<database>`. */
const counts = new Map<string, StatementCounts>();
let texts: Map<string, number> | undefined;

/** read (SELECT), write (INSERT/UPDATE/DELETE, also inside WITH), tx (BEGIN/COMMIT/…), other. */
export function classify(sql: string): StatementKind {
  const head = /^\s*(?:\/\*.*?\*\/\s*)*([a-z]+)/is.exec(sql)?.[1]?.toUpperCase() ?? '';
  if (['BEGIN', 'START', 'COMMIT', 'ROLLBACK', 'SAVEPOINT', 'RELEASE', 'END'].includes(head))
    return 'tx';
  if (['INSERT', 'UPDATE', 'DELETE', 'REPLACE', 'MERGE', 'UPSERT'].includes(head)) return 'write';
  if (head === 'WITH')
    return /\b(INSERT|UPDATE|DELETE)\b/i.test(sql.replace(/'[^']*'/g, '')) ? 'write' : 'read';
  if (head === 'SELECT' || head === 'VALUES' || head === 'SHOW') return 'read';
  return 'other';
}

function record(channel: string, sql: unknown): void {
  const text =
    typeof sql === 'string'
      ? sql
      : String(
          (sql as { text?: string; sql?: string } | undefined)?.text ??
            (sql as { sql?: string } | undefined)?.sql ??
            '',
        );
  let c = counts.get(channel);
  if (!c) counts.set(channel, (c = { read: 0, write: 0, tx: 0, other: 0 }));
  c[classify(text)]++;
  if (texts) {
    const key = text.replace(/\s+/g, ' ').trim().slice(0, 160);
    texts.set(key, (texts.get(key) ?? 0) + 1);
  }
}

let installed = false;

/** Wraps the drivers once per process. */
export function installCounters(): void {
  if (installed) return;
  installed = true;

  // better-sqlite3: every statement, cached or not, runs through the Statement prototype.
  const probe = new Database(':memory:');
  const statementProto = Object.getPrototypeOf(probe.prepare('SELECT 1')) as Record<
    string,
    (...args: unknown[]) => unknown
  >;
  probe.close();
  for (const method of ['run', 'all', 'get', 'iterate']) {
    const original = statementProto[method];
    statementProto[method] = function (
      this: { source: string; database: { name: string } },
      ...args: unknown[]
    ) {
      record(`sqlite:${this.database.name}`, this.source);
      return original.apply(this, args);
    };
  }
  const dbProto = Database.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
  const exec = dbProto.exec;
  dbProto.exec = function (this: { name: string }, sql: unknown) {
    record(`sqlite:${this.name}`, sql);
    return exec.call(this, sql);
  };

  // pg: Pool.query and PoolClient.query both end in Client.prototype.query.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const pg = require('pg') as {
    Client: { prototype: Record<string, (...a: unknown[]) => unknown> };
  };
  const pgQuery = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: { database?: string }, ...args: unknown[]) {
    record(`pg:${this.database ?? ''}`, args[0]);
    return pgQuery.apply(this, args);
  };

  // mysql2: pool.query/execute take a pooled connection and call these (on BaseConnection).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mysql = require('mysql2') as { Connection: { prototype: object } };
  const connectionProto = Object.getPrototypeOf(mysql.Connection.prototype) as Record<
    string,
    (...a: unknown[]) => unknown
  >;
  for (const method of ['query', 'execute']) {
    const original = connectionProto[method];
    connectionProto[method] = function (
      this: { config?: { database?: string } },
      ...args: unknown[]
    ) {
      record(`mysql:${this.config?.database ?? ''}`, args[0]);
      return original.apply(this, args);
    };
  }
}

export type Snapshot = Map<string, StatementCounts>;

/** A snapshot of the counts so far. */
export function snapshot(): Snapshot {
  return new Map([...counts].map(([k, c]) => [k, { ...c }]));
}

/** Counts since `before`, on one channel (see {@link channelOf}) or on all. */
export function since(before: Snapshot, channel?: string): StatementCounts {
  const sum: StatementCounts = { read: 0, write: 0, tx: 0, other: 0 };
  for (const [key, c] of counts) {
    if (channel !== undefined && key !== channel) continue;
    const b = before.get(key) ?? { read: 0, write: 0, tx: 0, other: 0 };
    sum.read += c.read - b.read;
    sum.write += c.write - b.write;
    sum.tx += c.tx - b.tx;
    sum.other += c.other - b.other;
  }
  return sum;
}

/** The channel statements on a SQLite file, a PostgreSQL or a MariaDB database count under. */
export const channelOf = (kind: 'sqlite' | 'pg' | 'mysql', name: string): string =>
  `${kind}:${name}`;

export const total = (c: StatementCounts): number => c.read + c.write + c.tx + c.other;

/** Records each distinct statement text (first 160 characters) until `stopTexts()`. */
export function startTexts(): void {
  texts = new Map();
}

export function stopTexts(): Map<string, number> {
  const result = texts ?? new Map<string, number>();
  texts = undefined;
  return result;
}
