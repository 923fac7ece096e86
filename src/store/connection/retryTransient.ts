import { isTransientStoreError } from './transientStoreError';

const FIRST_DELAY_MS = 25;
const MAX_DELAY_MS = 2_000;

/** How {@link retryTransient} goes on, and what it throws when it stops. */
export interface TransientRetry {
  /** How long after the first try began to keep trying (`storeRetryTimeout`). */
  readonly timeoutMs: number;
  /** Throws to stop at once (the runtime died meanwhile); called around each wait. */
  readonly assertGoOn?: () => void;
  /** Told before each wait: the failure, the wait, and how many tries failed so far. */
  readonly onRetry?: (error: unknown, delayMs: number, attempt: number) => void;
  /**
   * The error to throw for the last failure: `retriedMs` is how long the operation was
   * retried when an outage outlasted `timeoutMs`, undefined when the failure is not one a
   * retry can outlast (a wrong password, a syntax error).
   */
  readonly giveUp: (error: unknown, retriedMs: number | undefined) => unknown;
}

/**
 * Database outages, waited out: `work`, first tried at `started`, failed with `error`; it is
 * tried again while its failures are transient ({@link isTransientStoreError}: a lost or
 * refused connection, a server starting up, too many connections, a lock) and the timeout
 * leaves room, after a jittered backoff from 25 ms doubling to 2 s. Every statement and
 * the runtime's start-up retry through this one loop.
 *
 * @example
 * ```ts
 * const started = Date.now();
 * await connect().catch((error) =>
 *   retryTransient(connect, error, started, { timeoutMs: 30_000, giveUp: (e) => e }),
 * );
 * ```
 */
export async function retryTransient<T>(
  work: () => Promise<T>,
  error: unknown,
  started: number,
  options: TransientRetry,
): Promise<T> {
  for (let delay = FIRST_DELAY_MS, attempt = 1; ; delay = Math.min(delay * 2, MAX_DELAY_MS)) {
    if (!isTransientStoreError(error)) throw options.giveUp(error, undefined);
    const elapsed = Date.now() - started;
    if (elapsed + delay > options.timeoutMs) throw options.giveUp(error, elapsed);
    options.assertGoOn?.();
    const wait = Math.round(delay * (0.5 + Math.random() / 2));
    options.onRetry?.(error, wait, attempt++);
    await new Promise((resolve) => setTimeout(resolve, wait));
    options.assertGoOn?.();
    try {
      return await work();
    } catch (next) {
      error = next;
    }
  }
}

/** Runs `work`, retrying it through an outage as {@link retryTransient} does. */
export async function withTransientRetry<T>(
  work: () => Promise<T>,
  options: TransientRetry,
): Promise<T> {
  const started = Date.now();
  try {
    return await work();
  } catch (error) {
    return retryTransient(work, error, started, options);
  }
}
