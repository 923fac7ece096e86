import { InvalidArgumentError } from '../errors/InvalidArgumentError';

/** Options of `ctx.all()`. */
export interface AllOptions {
  /** Calls running at once; default all of them. */
  concurrency?: number;
}

/**
 * Calls `calls` in order, at most `concurrency` running at once, and resolves with their
 * results in call order; the first failure rejects, and no call after it is started. Calls
 * start strictly in index order, so in a run each takes the same sequence number on every
 * execution: a resumed parent finds each child's recorded outcome at its place.
 */
export function boundedAll<T>(
  calls: ReadonlyArray<() => Promise<T>>,
  options: AllOptions = {},
): Promise<T[]> {
  if (!Array.isArray(calls) || calls.some((call) => typeof call !== 'function')) {
    throw new InvalidArgumentError(
      'ctx.all(): calls',
      'must be an array of functions, each making one call: () => this.child(x)',
    );
  }
  const limit = options.concurrency ?? calls.length;
  if (!Number.isInteger(limit) || limit < 1) {
    throw new InvalidArgumentError(
      'ctx.all(): concurrency',
      `must be a positive integer, got ${String(options.concurrency)}`,
    );
  }
  return pool(calls, limit);
}

async function pool<T>(calls: ReadonlyArray<() => Promise<T>>, limit: number): Promise<T[]> {
  const results = new Array<T>(calls.length);
  let next = 0;
  let failed = false;
  // Each lane takes the next index synchronously when it is free, so calls start in order.
  const lane = async (): Promise<void> => {
    while (!failed && next < calls.length) {
      const index = next++;
      try {
        results[index] = await calls[index]();
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, calls.length) }, lane));
  return results;
}
