import type { DataSource, DataSourceOptions } from 'typeorm';
import type { DependencyContainer } from 'tsyringe';
import type { Duration } from '../ground/Duration';
import type { Clock } from '../ground/Clock';
import type { Logger } from '../ground/Logger';
import type { Constructor } from '../model/Constructor';
import type { StepHooks } from '../model/StepHooks';

/** Gives the instance a resumed run's workflow method is called on. */
export type InstanceResolver = (Class: Constructor) => object;

/** Options of `Waymark.create()`. */
export interface RuntimeOptions {
  /**
   * Where runs are stored: a URL (`'sqlite:./waymark.db'`, `'sqlite::memory:'`,
   * `'mysql://user:pass@host:3306/db'`, `'postgres://…'`), TypeORM `DataSourceOptions`,
   * or the application's own `DataSource` (initialized or not; waymark never closes it).
   */
  database: string | DataSourceOptions | DataSource;
  /** The tsyringe container workflow classes are resolved from; default the root container. */
  container?: DependencyContainer;
  /**
   * Gives the instance of a workflow class a run (started by `start()`, resumed by a worker)
   * is executed on; default `container.resolve(Class)`. `waymark/nest` passes Nest's
   * `ModuleRef`, so resumed runs get the providers Nest injects.
   */
  resolveInstance?: InstanceResolver;
  /** Identity of this process in run ownership; default `host:pid:random`. */
  workerId?: string;
  /** How long a claim on a run lasts without renewal; default `'30s'`. */
  leaseDuration?: Duration;
  /** Time source; tests pass a fake clock. */
  clock?: Clock;
  /** Where warnings go; default `console` for warnings and errors only. */
  logger?: Logger;
  /** Also write every run and step event to `logger` as a structured line; default false. */
  logEvents?: boolean;
  /**
   * A retry delay longer than this does not hold the process: the run goes to `waiting`
   * and is resumed when due. Default `'30s'`.
   */
  durableDelayThreshold?: Duration;
  /**
   * How long a step waits for a global idempotency key (`@Idempotent({ scope: 'global' })`)
   * that another live run is executing, before `IdempotencyConflictError`. Default `'30s'`.
   */
  idempotencyWait?: Duration;
  /**
   * How long one database operation is retried through an outage (a lost or killed
   * connection, a restarting server, a lock) before the run is left, resumable, with a
   * `StoreUnavailableError` naming the cause. Default `'30s'`.
   */
  storeRetryTimeout?: Duration;
  /**
   * Say (one warning, at most once per process) when stopped processes on this host left runs
   * `running` that this runtime does not resume itself within a few seconds or before it
   * closes; default `true`. The CLI and `createTestRuntime()` pass `false`.
   */
  reportAbandonedRuns?: boolean;
  /** Apply waymark's pending migrations at start; default `true`. */
  migrate?: boolean;
  /** Largest stored value (arguments, a result, an error) in bytes; default 1 MiB. */
  maxValueBytes?: number;
  /**
   * Group commit, on by default: the plain checkpoints of concurrent runs, and the rows that
   * create and end runs, that arrive while a commit is in flight are written together in the
   * next commit. Durability is the same — a step returns only after the COMMIT that holds its
   * checkpoint — but a step may wait for the commit in flight. `false`: each commits alone.
   */
  groupCommit?: boolean | GroupCommitOptions;
  /**
   * The key `runtime.streamToken()` signs with (HMAC-SHA256), at least 32 characters; default
   * 32 random bytes of this process, so only this process accepts its tokens. Every process
   * that serves streams to tokens another one made (a `waymark console`, a second replica)
   * needs the same secret.
   */
  streamTokenSecret?: string;
  /** Observation points on the step path; used by `waymark/testing`. */
  hooks?: StepHooks;
}

/** The bounds of one group commit; see {@link RuntimeOptions.groupCommit}. */
export interface GroupCommitOptions {
  /** The most writes (checkpoints, new runs, runs' endings) in one commit; default 500. */
  maxRows?: number;
  /** The most bytes of stored values in one commit, default 4 MiB (a larger value commits alone). */
  maxBytes?: number;
}
