import type { DataSource, EntityManager, QueryResult, QueryRunner } from 'typeorm';
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
import { directQuery, type DirectQuery } from './DirectDriver';
import { retryTransient } from './retryTransient';
import { isLostConnectionError, isTransientStoreError } from './transientStoreError';

/** Orders statements on SQLite's one connection: `holders` transactions hold or await it. */
interface SqliteGate {
  value: Promise<void>;
  holders: number;
}

/** How long one operation keeps retrying through a database outage. */
export interface RetrySettings {
  readonly timeoutMs: number;
}

/** How {@link StoreConnection.transaction} runs its work; see there. */
export interface TransactionOptions<T> {
  readonly retry?: boolean;
  readonly userWork?: UserWork<T>;
  readonly lostRace?: () => T;
}

/** A transaction that runs a user's code (a transactional step's body) beside waymark's writes. */
export interface UserWork<T> {
  /**
   * After the transaction's connection was lost: what it committed, if its COMMIT landed
   * though no answer came back; undefined when it rolled back (and is to be run again).
   */
  committed(): Promise<T | undefined>;
}

/** A user's work failed on a connection found dead: the failure is the connection's. */
class LostTransactionConnection extends Error {
  constructor(readonly thrown: unknown) {
    super('the connection of the transaction was lost');
  }
}

/**
 * One of waymark's own statements of a user's transaction failed (its BEGIN, its checkpoint,
 * its COMMIT): a failure of the store, never the user's step's, whatever the driver said.
 */
export class OwnStatementFailure extends Error {
  constructor(readonly cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
  }
}

const FIRST_DELAY_MS = 25;
const MAX_DELAY_MS = 2_000;

/**
 * How waymark talks to its database: one statement or one transaction at a time, each
 * naming what it does in its errors, retried with backoff through a lost or killed
 * connection or a lock, and refused once the runtime is dead. On SQLite, whose one
 * connection every statement shares, a transaction holds the others back until it ends.
 */
export class StoreConnection {
  readonly dialect: DialectName;
  private readonly direct: DirectQuery | undefined;

  constructor(
    readonly dataSource: DataSource,
    private readonly lifecycle: Lifecycle,
    private readonly retry: RetrySettings,
    private readonly bound?: QueryRunner,
    private readonly gate: SqliteGate = { value: Promise.resolve(), holders: 0 },
  ) {
    this.dialect = dialectOf(dataSource);
    this.direct = bound ? undefined : directQuery(dataSource);
  }

  /**
   * Runs one statement. Inside a transaction, failures go to the transaction's caller. The
   * first try goes straight to the driver, with no async layer between (each one is a
   * promise and a turn of the microtask queue on every checkpoint); a failure enters the
   * retry loop.
   */
  exec(operation: string, sql: string, params: unknown[]): Promise<QueryResult> {
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
    // better-sqlite3 runs a statement synchronously: with no transaction open or waiting on
    // the connection, it cannot interleave with one, so it need not queue at the gate.
    const once = (): Promise<QueryResult> =>
      this.dialect === 'sqlite' && this.gate.holders === 0
        ? direct(sql, params)
        : this.serialized(() => direct(sql, params));
    const started = Date.now();
    return once().catch((error: unknown) => this.retryAfter(operation, error, once, started));
  }

  /**
   * Runs `work` in one transaction, with a connection bound to it (and the transaction's
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
    work: (tx: StoreConnection, manager: EntityManager) => Promise<T>,
    options: TransactionOptions<T> = {},
  ): Promise<T> {
    this.lifecycle.assertAlive(operation);
    const user = options.userWork !== undefined;
    const guarded = user ? this.probing(work) : work;
    const run = (): Promise<T> =>
      this.dialect === 'sqlite'
        ? this.serialized(() => this.sqliteTransaction(guarded, user))
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
    if (options.userWork) return this.userTransaction(operation, once, options.userWork);
    return options.retry ? this.retrying(operation, once) : this.named(operation, once);
  }

  /**
   * A user's transaction whose connection was lost rolled back — or, lost during COMMIT,
   * committed unanswered: `user.committed()` tells which. One that rolled back is run again
   * whole, as any write through an outage, until the retry timeout; then the run stops
   * resumable (`StoreUnavailableError`). A driver's error about the dead connection is never
   * the step's outcome.
   */
  private async userTransaction<T>(
    operation: string,
    once: () => Promise<T>,
    user: UserWork<T>,
  ): Promise<T> {
    const started = Date.now();
    for (let delay = FIRST_DELAY_MS; ; delay = Math.min(delay * 2, MAX_DELAY_MS)) {
      let lost: unknown;
      try {
        return await once();
      } catch (error) {
        if (error instanceof LostTransactionConnection) lost = error.thrown;
        else if (isLostConnectionError(error)) lost = error;
        else if (!(error instanceof OwnStatementFailure)) throw error;
        else if (isTransientStoreError(error.cause)) lost = error.cause;
        else throw new StoreUnavailableError(operation, error.cause);
      }
      const committed = await user.committed();
      if (committed !== undefined) return committed;
      if (Date.now() - started + delay > this.retry.timeoutMs) {
        throw new StoreUnavailableError(operation, lost);
      }
      this.lifecycle.assertAlive(operation);
      await new Promise((resolve) => setTimeout(resolve, delay * (0.5 + Math.random() / 2)));
      this.lifecycle.assertAlive(operation);
    }
  }

  /**
   * `work` whose failure is checked against its connection: a user's code may catch the
   * driver's error and throw its own, so when it fails, one `SELECT 1` asks whether the
   * connection still answers (on PostgreSQL an aborted transaction answers with an error of
   * its own, which is an answer).
   */
  private probing<T>(
    work: (tx: StoreConnection, manager: EntityManager) => Promise<T>,
  ): (tx: StoreConnection, manager: EntityManager) => Promise<T> {
    if (this.dialect === 'sqlite') return work;
    return async (tx, manager) => {
      try {
        return await work(tx, manager);
      } catch (error) {
        if (isLostConnectionError(error)) throw error;
        const answered = await manager.query('SELECT 1').then(
          () => true,
          (probe: unknown) => !isLostConnectionError(probe),
        );
        throw answered ? error : new LostTransactionConnection(error);
      }
    };
  }

  /**
   * PostgreSQL, MySQL/MariaDB: TypeORM's transaction; with `mark`, a failure of its BEGIN
   * (before the work started) or of its COMMIT (after the work returned) is told apart from the
   * work's own ({@link OwnStatementFailure}).
   */
  private async serverTransaction<T>(
    work: (tx: StoreConnection, manager: EntityManager) => Promise<T>,
    mark: boolean,
  ): Promise<T> {
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

  private boundTo(runner: QueryRunner): StoreConnection {
    return new StoreConnection(this.dataSource, this.lifecycle, this.retry, runner, this.gate);
  }

  /**
   * SQLite: `BEGIN IMMEDIATE`, taking the write lock up front (waiting for it like any
   * write). TypeORM's deferred `BEGIN` would start reading, then fail at once with
   * SQLITE_BUSY_SNAPSHOT when another process wrote in between. The runner is marked as in
   * a transaction so TypeORM nests its own (a `save()` in a step) as savepoints. With `mark`,
   * a failed BEGIN or COMMIT is an {@link OwnStatementFailure}.
   */
  private async sqliteTransaction<T>(
    work: (tx: StoreConnection, manager: EntityManager) => Promise<T>,
    mark: boolean,
  ): Promise<T> {
    const runner = this.dataSource.createQueryRunner();
    const state = runner as unknown as { isTransactionActive: boolean; transactionDepth: number };
    const own = (error: unknown): never => {
      throw mark ? new OwnStatementFailure(error) : error;
    };
    await this.query(runner, 'BEGIN IMMEDIATE', []).catch(own);
    state.isTransactionActive = true;
    state.transactionDepth = 1;
    try {
      const result = await work(this.boundTo(runner), runner.manager);
      await this.query(runner, 'COMMIT', []).catch(own);
      return result;
    } catch (error) {
      await runner.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      state.isTransactionActive = false;
      state.transactionDepth = 0;
    }
  }

  private async query(runner: QueryRunner, sql: string, params: unknown[]): Promise<QueryResult> {
    const result = await runner.query(sql, params, true);
    result.records ??= [];
    return result;
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
  private async serialized<T>(work: () => Promise<T>): Promise<T> {
    if (this.dialect !== 'sqlite') return work();
    const previous = this.gate.value;
    let release!: () => void;
    this.gate.value = new Promise<void>((resolve) => (release = resolve));
    this.gate.holders++;
    try {
      await previous;
      return await work();
    } finally {
      this.gate.holders--;
      release();
    }
  }
}
