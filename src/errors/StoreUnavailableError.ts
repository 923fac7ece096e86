import { brand, hasBrand } from './brand';
import { WaymarkError } from './WaymarkError';

/**
 * The database did not answer or refused a write waymark needs. The run is left as it
 * was, resumable, and nothing is recorded as its outcome.
 */
export class StoreUnavailableError extends WaymarkError {
  constructor(operation: string, cause: unknown) {
    super(
      'STORE_UNAVAILABLE',
      `waymark could not ${operation}: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
  }
}

brand(StoreUnavailableError, 'StoreUnavailableError');

/** True when `error` is a {@link StoreUnavailableError}. */
export function isStoreUnavailableError(error: unknown): error is StoreUnavailableError {
  return hasBrand(error, 'StoreUnavailableError');
}
