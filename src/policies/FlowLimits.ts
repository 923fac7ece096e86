import { InvalidArgumentError } from '../errors/InvalidArgumentError';
import { parseDuration, type Duration } from '../ground/Duration';
import type { ArgsFunction } from '../model/ArgsFunction';

/** At most `limit` starts in any window of length `period`. */
export interface RateLimit {
  limit: number;
  period: Duration;
}

/** Options of `runtime.queue(name, options)`. */
export interface QueueOptions {
  /** Runs of the queue executing at once, across every worker process. */
  concurrency?: number;
  /** Runs of the queue executing at once in one worker process. */
  workerConcurrency?: number;
  /** Runs of the queue started (first claimed) per period, across every worker process. */
  rateLimit?: RateLimit;
  /** The partition key of a run from its arguments (e.g. the tenant); keys take turns. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a user's unannotated parameters stay `any`; `never` would refuse `(order) => order.tenant`
  partitionBy?: (...args: any[]) => string;
  /** With `partitionBy`: runs of one key executing at once, across every worker process. */
  perKeyConcurrency?: number;
}

/** Options of `runtime.limiter(name, options)`. */
export interface LimiterOptions {
  /** Step attempts under the limiter executing at once, across every worker process. */
  concurrency?: number;
  /** Step attempts under the limiter started per period, across every worker process. */
  rateLimit?: RateLimit;
}

/** A rate limit with its period in milliseconds. */
export interface ResolvedRateLimit {
  readonly limit: number;
  readonly periodMs: number;
}

/** A queue's options, checked. */
export interface ResolvedQueue {
  readonly name: string;
  readonly concurrency: number | undefined;
  readonly workerConcurrency: number | undefined;
  readonly rateLimit: ResolvedRateLimit | undefined;
  readonly partitionBy: ArgsFunction<string> | undefined;
  readonly perKeyConcurrency: number | undefined;
}

/** A limiter's options, checked. */
export interface ResolvedLimiter {
  readonly name: string;
  readonly concurrency: number | undefined;
  readonly rateLimit: ResolvedRateLimit | undefined;
}

const NAME = /^[^\s]{1,200}$/;

/** Checks `runtime.queue(name, options)`; bad input throws `InvalidArgumentError` naming it. */
export function resolveQueue(name: string, options: QueueOptions = {}): ResolvedQueue {
  const where = `queue("${String(name)}")`;
  assertName(name, 'queue(): name');
  if (options.partitionBy !== undefined && typeof options.partitionBy !== 'function') {
    throw new InvalidArgumentError(`${where}: partitionBy`, 'must be a function of the arguments');
  }
  if (options.perKeyConcurrency !== undefined && !options.partitionBy) {
    throw new InvalidArgumentError(`${where}: perKeyConcurrency`, 'needs partitionBy');
  }
  return Object.freeze({
    name,
    concurrency: positive(options.concurrency, `${where}: concurrency`),
    workerConcurrency: positive(options.workerConcurrency, `${where}: workerConcurrency`),
    rateLimit: rate(options.rateLimit, `${where}: rateLimit`),
    partitionBy: options.partitionBy,
    perKeyConcurrency: positive(options.perKeyConcurrency, `${where}: perKeyConcurrency`),
  });
}

/** Checks `runtime.limiter(name, options)`; bad input throws `InvalidArgumentError` naming it. */
export function resolveLimiter(name: string, options: LimiterOptions = {}): ResolvedLimiter {
  const where = `limiter("${String(name)}")`;
  assertName(name, 'limiter(): name');
  return Object.freeze({
    name,
    concurrency: positive(options.concurrency, `${where}: concurrency`),
    rateLimit: rate(options.rateLimit, `${where}: rateLimit`),
  });
}

function assertName(name: unknown, what: string): asserts name is string {
  if (typeof name !== 'string' || !NAME.test(name)) {
    throw new InvalidArgumentError(
      what,
      `must be 1–200 characters without spaces, got ${show(name)}`,
    );
  }
}

function positive(value: unknown, what: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new InvalidArgumentError(what, `must be a positive integer, got ${show(value)}`);
  }
  return value;
}

function rate(value: RateLimit | undefined, what: string): ResolvedRateLimit | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null) {
    throw new InvalidArgumentError(what, `must be { limit, period }, got ${show(value)}`);
  }
  const limit = positive(value.limit, `${what}.limit`);
  if (limit === undefined) throw new InvalidArgumentError(`${what}.limit`, 'is required');
  const periodMs = parseDuration(value.period, `${what}.period`);
  if (periodMs < 1) {
    throw new InvalidArgumentError(
      `${what}.period`,
      `must be longer than zero, got ${show(value.period)}`,
    );
  }
  return Object.freeze({ limit, periodMs });
}

function show(value: unknown): string {
  return typeof value === 'string' ? `"${value}"` : String(value);
}
