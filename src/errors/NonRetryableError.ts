import { brand, hasBrand } from './brand';
import { WaymarkError } from './WaymarkError';

/**
 * Throw from a step to fail it at once: no further attempts, even when `retryOn` would
 * match. Only `abortOn` is checked before it, and it also fails fast.
 *
 * @example
 * ```ts
 * if (!order.sku) throw new NonRetryableError('order has no SKU');
 * ```
 */
export class NonRetryableError extends WaymarkError {
  declare readonly code: 'NON_RETRYABLE';

  constructor(message: string, options: { cause?: unknown } = {}) {
    super('NON_RETRYABLE', message, options);
  }
}

brand(NonRetryableError, 'NonRetryableError');

/** True when `error` is a {@link NonRetryableError}. */
export function isNonRetryableError(error: unknown): error is NonRetryableError {
  return hasBrand(error, 'NonRetryableError');
}
