import { NoWritableHostError, type HostAnswer } from '../../../errors/NoWritableHostError';
import { describeAnswer } from './describeAnswer';
import { formatHost, type HostAddress } from './HostList';

type Callback<T> = (error: Error | null, value?: T) => void;

/** The part of a mysql2 pooled connection this pool and TypeORM use. */
interface PooledConnection {
  query(...args: unknown[]): unknown;
  release(): void;
  [WATCHED]?: true;
}

/** The part of a mysql2 pool used here. */
interface MysqlPool {
  getConnection(callback: Callback<PooledConnection>): void;
  end(callback: (error?: Error | null) => void): void;
}

/** The part of the mysql2 module used here. */
export interface MysqlModule {
  createPool(options: Record<string, unknown>): MysqlPool;
}

const WATCHED = Symbol('waymark.failoverWatched');

/**
 * A Galera node outside the cluster's primary component (it lost quorum, or is still
 * joining) keeps its connections but answers every statement with error 1047 "WSREP has not
 * yet prepared node for application use"; a server shutting down answers 1053. Either way
 * the next statement belongs on another host.
 */
function isNodeUnusable(error: unknown): boolean {
  const e = error as { errno?: unknown; fatal?: unknown } | null;
  return e?.errno === 1047 || e?.errno === 1053 || e?.fatal === true;
}

/**
 * A mysql2-compatible pool over several MySQL/MariaDB hosts (a Galera cluster's nodes),
 * given to TypeORM as the driver's pool. It keeps one mysql2 pool per host and draws
 * connections from the host that last worked; when that host refuses a connection, or a
 * statement finds it unusable, the next listed host takes over (wrapping around). Every
 * host of a Galera cluster accepts writes, so "works" is "takes a connection". When none
 * does, the error names each host and what it answered.
 */
export class FailoverMysqlPool {
  private readonly pools = new Map<number, MysqlPool>();
  private current = 0;
  private closed = false;

  constructor(
    private readonly mysql: MysqlModule,
    private readonly options: Record<string, unknown>,
    readonly hosts: readonly HostAddress[],
  ) {}

  /** As mysql2's `pool.getConnection`: a connection from the first host that gives one. */
  getConnection(callback: Callback<PooledConnection>): void {
    this.connect().then(
      (connection) => callback(null, connection),
      (error: Error) => callback(error),
    );
  }

  /** As mysql2's `pool.query(sql, values, callback)`, on a connection of the current host. */
  query(sql: string, values: unknown[], callback: (error: Error | null, rows?: unknown) => void) {
    this.getConnection((error, connection) => {
      if (error || !connection) return callback(error);
      connection.query(sql, values, (queryError: Error | null, rows: unknown) => {
        connection.release();
        callback(queryError, rows);
      });
    });
  }

  /** Closes every host's pool. */
  end(callback: (error?: Error | null) => void = () => undefined): void {
    this.closed = true;
    const pools = [...this.pools.values()];
    this.pools.clear();
    Promise.all(
      pools.map(
        (pool) => new Promise<void>((done, fail) => pool.end((e) => (e ? fail(e) : done()))),
      ),
    ).then(
      () => callback(null),
      (error: Error) => callback(error),
    );
  }

  private async connect(): Promise<PooledConnection> {
    if (this.closed) throw new Error('Pool is closed.');
    const tried: HostAnswer[] = [];
    const start = this.current;
    for (let i = 0; i < this.hosts.length; i++) {
      const index = (start + i) % this.hosts.length;
      try {
        const connection = await this.connectTo(index);
        this.current = index;
        return connection;
      } catch (error) {
        tried.push({
          host: formatHost(this.hosts[index]),
          answer: describeAnswer(error, this.options.password as string | undefined),
        });
      }
    }
    throw new NoWritableHostError(tried, 'accepts connections');
  }

  private connectTo(index: number): Promise<PooledConnection> {
    return new Promise((resolve, reject) =>
      this.poolOf(index).getConnection((error, connection) => {
        if (error || !connection) return reject(error ?? new Error('no connection'));
        this.watch(connection, index);
        resolve(connection);
      }),
    );
  }

  private poolOf(index: number): MysqlPool {
    let pool = this.pools.get(index);
    if (!pool) {
      const { host, port } = this.hosts[index];
      pool = this.mysql.createPool({ ...this.options, host, port });
      this.pools.set(index, pool);
    }
    return pool;
  }

  /**
   * Moves on from a host whose statement showed it unusable. TypeORM runs statements on
   * the connection itself, so the watch sits on the connection's `query`, once per
   * connection.
   */
  private watch(connection: PooledConnection, index: number): void {
    if (connection[WATCHED]) return;
    connection[WATCHED] = true;
    const query = connection.query.bind(connection);
    connection.query = (...args: unknown[]) => {
      const last = args.length - 1;
      const callback = args[last];
      if (typeof callback === 'function') {
        args[last] = (error: unknown, ...rest: unknown[]) => {
          if (error && isNodeUnusable(error)) this.leave(index);
          return (callback as (...a: unknown[]) => unknown)(error, ...rest);
        };
      }
      return query(...args);
    };
  }

  private leave(index: number): void {
    if (this.current === index) this.current = (index + 1) % this.hosts.length;
  }
}
