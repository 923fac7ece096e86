import { brand, hasBrand } from './brand';
import type { Duration } from '../ground/Duration';
import { WaymarkError } from './WaymarkError';

/**
 * Throw from a step to say "this failure is transient, try again", whatever the built-in
 * classifier would decide. `retryAfter` is a server's hint for the earliest retry; the
 * delay is the larger of it and the backoff (see `@Retry({ respectRetryAfter })`).
 *
 * @example
 * ```ts
 * if (res.status === 409) throw new RetryableError('ledger busy', { retryAfter: '5s' });
 * ```
 */
export class RetryableError extends WaymarkError {
  declare readonly code: 'RETRYABLE';

  /** The earliest time to retry, when known. */
  readonly retryAfter: Duration | undefined;

  constructor(message: string, options: { retryAfter?: Duration; cause?: unknown } = {}) {
    super('RETRYABLE', message, { cause: options.cause });
    this.retryAfter = options.retryAfter;
  }
}

brand(RetryableError, 'RetryableError');

/** True when `error` is a {@link RetryableError}. */
export function isRetryableError(error: unknown): error is RetryableError {
  return hasBrand(error, 'RetryableError');
}
