import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { StoreUnavailableError } from '../../errors/StoreUnavailableError';
import { isNoWritableHostError } from '../../errors/NoWritableHostError';
import { WaymarkError } from '../../errors/WaymarkError';
import type { Lifecycle } from '../../ground/Lifecycle';
import {
  dialectOf,
  isDuplicateKey,
  isLockConflict,
  isMissingReference,
  type DialectName,
} from './Dialect';
import { detectTransactionPooler } from './detectTransactionPooler';
import {
  directDriver,
  type DirectQuery,
  type DirectQueryNow,
  type DirectResult,
} from './DirectDriver';
import { OwnStatementFailure } from './OwnStatementFailure';
import { numbered } from './placeholders';
import { retryTransient } from './retryTransient';
import { runTogether } from './runTogether';
import { SqliteGate } from './SqliteGate';
import { sqliteTransaction } from './sqliteTransaction';
import { probing, userTransaction, type UserWork } from './userTransaction';

export type { UserWork } from './userTransaction';

/** How long one operation keeps retrying through a database outage, and who is told of each retry. */
export interface RetrySettings {
  readonly timeoutMs: number;
  readonly onRetry: (operation: string, error: unknown, delayMs: number, attempt: number) => void;
}

/** How {@link Database.transaction} runs its work; see there. */
export interface TransactionOptions<T> {
  readonly retry?: boolean;
  readonly userWork?: UserWork<T>;
  readonly lostRace?: () => T;
}

/** Work run in one transaction, given the handle bound to it and its EntityManager. */
export type TransactionWork<T> = (tx: Database, manager: EntityManager) => Promise<T>;

/**
 * The one handle every repository takes: it knows the database's dialect, writes its
 * placeholders ({@link sql}: `$1, $2, …` on PostgreSQL, `?` elsewhere), and runs one
 * statement or one transaction at a time, each naming what it does in its errors, retried
 * with backoff through a lost or killed connection or a lock, and refused once the runtime
 * is dead. On SQLite, whose one connection every statement shares, a transaction holds the
 * others back until it ends.
 */
export class Database {
  readonly dialect: DialectName;
  private readonly direct: DirectQuery | undefined;
  private readonly directNow: DirectQueryNow | undefined;

  constructor(
    readonly dataSource: DataSource,
    private readonly lifecycle: Lifecycle,
    private readonly retry: RetrySettings,
    private readonly bound?: QueryRunner,
    private readonly gate: SqliteGate = new SqliteGate(),
  ) {
    this.dialect = dialectOf(dataSource);
    const driver = bound ? undefined : directDriver(dataSource);
    this.direct = driver?.query;
    this.directNow = driver?.now;
  }

  /** Whether this handle is bound to one open transaction (its statements are that transaction's). */
  get inTransaction(): boolean {
    return this.bound !== undefined;
  }

  /** `text`, written with `?` placeholders, as this dialect takes it. */
  sql(text: string): string {
    return numbered(text, this.dialect === 'postgres');
  }

  /**
   * Runs one statement. Inside a transaction, failures go to the transaction's caller. The
   * first try goes straight to the driver, with no async layer between (each one is a
   * promise and a turn of the microtask queue on every checkpoint); a failure enters the
   * retry loop.
   */
  exec(operation: string, sql: string, params: unknown[]): Promise<DirectResult> {
    try {
      this.lifecycle.assertAlive(operation);
    } catch (error) {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the runtime's own error, as it is
      return Promise.reject(error);
    }
    if (this.bound) return this.query(this.bound, sql, params);
    const direct = this.direct;
    if (!direct) {
      return this.retrying(operation, () =>
        this.serialized(async () => {
          const runner = this.dataSource.createQueryRunner();
          try {
            return await this.query(runner, sql, params);
          } finally {
            await runner.release();
          }
        }),
      );
    }
    const once = (): Promise<DirectResult> => this.directOnce(direct, sql, params);
    const started = Date.now();
    return once().catch((error: unknown) => this.retryAfter(operation, error, once, started));
  }

  /**
   * {@link exec}, with its first try run now where the driver runs statements synchronously
   * (SQLite, with no transaction open or waiting on the connection): then its result comes
   * back as it is, with no promise (a promise is a turn of the microtask queue, and on
   * Node 20 a call of every async hook, on every checkpoint). A failed first try, or any
   * other database, gives the promise `exec` gives. `operation` is written only if needed.
   */
  execNow(
    operation: () => string,
    sql: string,
    params: unknown[],
  ): DirectResult | Promise<DirectResult> {
    const now = this.directNow;
    if (now === undefined || this.gate.holders !== 0 || !this.lifecycle.isAlive) {
      return this.exec(operation(), sql, params);
    }
    const started = Date.now();
    try {
      return now(sql, params);
    } catch (error) {
      const direct = this.direct!;
      const once = (): Promise<DirectResult> => this.directOnce(direct, sql, params);
      return this.retryAfter(operation(), error, once, started);
    }
  }

  private directOnce(direct: DirectQuery, sql: string, params: unknown[]): Promise<DirectResult> {
    // better-sqlite3 runs a statement synchronously: with no transaction open or waiting on
    // the connection, it cannot interleave with one, so it need not queue at the gate.
    return this.dialect === 'sqlite' && this.gate.holders === 0
      ? direct(sql, params)
      : this.serialized(() => direct(sql, params));
  }

  /** SQLite: `statements` in one transaction, retried as one statement is (see {@link runTogether}). */
  async execTogether(
    operation: string,
    statements: ReadonlyArray<[string, unknown[]]>,
  ): Promise<Array<DirectResult | Error>> {
    this.lifecycle.assertAlive(operation);
    const direct = this.direct;
    if (this.dialect !== 'sqlite' || !direct || this.bound) {
      throw new Error(`${operation}: one transaction of statements is SQLite's alone`);
    }
    const once = () => this.serialized(() => runTogether(direct, statements));
    const started = Date.now();
    return once().catch((error: unknown) => this.retryAfter(operation, error, once, started));
  }

  /**
   * Runs `work` in one transaction, with a handle bound to it (and the transaction's
   * EntityManager, for a transactional step's own writes). With `retry`, a transaction that
   * failed on a lost connection is run again whole; `work` must then be safe to repeat.
   * With `userWork` (a transactional step's body runs in it), errors reach the caller as
   * thrown — a failed business insert is the step's failure, not an outage — except those of
   * a lost connection (see {@link userTransaction}). With `lostRace`,
   * a transaction rolled back by a deadlock (on Galera: another node's write won
   * certification) ends with what it returns instead of being run again after a backoff.
   */
  async transaction<T>(
    operation: string,
    work: TransactionWork<T>,
    options: TransactionOptions<T> = {},
  ): Promise<T> {
    this.lifecycle.assertAlive(operation);
    const user = options.userWork !== undefined;
    const guarded = user && this.dialect !== 'sqlite' ? probing(work) : work;
    const run = (): Promise<T> =>
      this.dialect === 'sqlite'
        ? this.serialized(() =>
            sqliteTransaction(
              this.dataSource.createQueryRunner(),
              (runner) => guarded(this.boundTo(runner), runner.manager),
              user,
            ),
          )
        : this.serverTransaction(guarded, user);
    const { lostRace } = options;
    const once = lostRace
      ? () =>
          run().catch((error: unknown) => {
            if (isLockConflict(error)) return lostRace();
            throw error;
          })
      : run;
    if (this.bound) return work(this, this.bound.manager);
    if (options.userWork) {
      return userTransaction(operation, once, options.userWork, {
        lifecycle: this.lifecycle,
        timeoutMs: this.retry.timeoutMs,
      });
    }
    return options.retry ? this.retrying(operation, once) : this.named(operation, once);
  }

  /**
   * PostgreSQL, MySQL/MariaDB: TypeORM's transaction; with `mark`, a failure of its BEGIN
   * (before the work started) or of its COMMIT (after the work returned) is told apart from the
   * work's own ({@link OwnStatementFailure}).
   */
  private async serverTransaction<T>(work: TransactionWork<T>, mark: boolean): Promise<T> {
    if (!mark) {
      return this.dataSource.transaction((manager) =>
        work(this.boundTo(manager.queryRunner!), manager),
      );
    }
    const at: { phase: 'begin' | 'work' | 'commit' } = { phase: 'begin' };
    try {
      return await this.dataSource.transaction(async (manager) => {
        at.phase = 'work';
        const result = await work(this.boundTo(manager.queryRunner!), manager);
        at.phase = 'commit';
        return result;
      });
    } catch (error) {
      throw at.phase === 'work' ? error : new OwnStatementFailure(error);
    }
  }

  private boundTo(runner: QueryRunner): Database {
    return new Database(this.dataSource, this.lifecycle, this.retry, runner, this.gate);
  }

  /** TypeORM's result, whose fields are `any`, as the typed result the direct drivers give. */
  private async query(runner: QueryRunner, sql: string, params: unknown[]): Promise<DirectResult> {
    const result = await runner.query(sql, params, true);
    return {
      raw: result.raw as unknown,
      records: (result.records ?? []) as Array<Record<string, unknown>>,
      affected: result.affected,
    };
  }

  /** Retries `work` through transient failures until the retry timeout; names the operation. */
  private async retrying<T>(operation: string, work: () => Promise<T>): Promise<T> {
    const started = Date.now();
    try {
      return await work();
    } catch (error) {
      return this.retryAfter(operation, error, work, started);
    }
  }

  /** `work`, started at `started`, failed with `error`: runs it again while that is transient. */
  private retryAfter<T>(
    operation: string,
    error: unknown,
    work: () => Promise<T>,
    started: number,
  ): Promise<T> {
    return retryTransient(work, error, started, {
      timeoutMs: this.retry.timeoutMs,
      assertGoOn: () => this.lifecycle.assertAlive(operation),
      onRetry: (last, delayMs, attempt) => this.retry.onRetry(operation, last, delayMs, attempt),
      giveUp: (last) => this.wrap(operation, last),
    });
  }

  private async named<T>(operation: string, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw this.wrap(operation, error);
    }
  }

  /**
   * Driver errors become `StoreUnavailableError` naming the operation; duplicates and
   * missing references (MySQL's step fence), which callers handle, and waymark's own errors
   * (a lost lease found in a transaction) stay, except a host list's "no host accepts
   * writes", which is an outage like any other. A transaction pooler's tell-tale answer is
   * no outage: it names the missing `pgbouncer=true`.
   */
  private wrap(operation: string, error: unknown): unknown {
    if (isDuplicateKey(error) || isMissingReference(error)) return error;
    if (error instanceof WaymarkError && !isNoWritableHostError(error)) return error;
    return (
      detectTransactionPooler(operation, error, this.dataSource.options) ??
      new StoreUnavailableError(operation, error)
    );
  }

  /** SQLite has one connection: a transaction on it must not interleave with other statements. */
  private serialized<T>(work: () => Promise<T>): Promise<T> {
    return this.dialect === 'sqlite' ? this.gate.serialized(work) : work();
  }
}
