import { brand, hasBrand } from './brand';
import { WaymarkError } from './WaymarkError';

/**
 * A global idempotency key is held by another live run, which did not finish with it
 * within the wait allowed (`idempotencyWait`).
 */
export class IdempotencyConflictError extends WaymarkError {
  declare readonly code: 'IDEMPOTENCY_CONFLICT';

  constructor(
    readonly key: string,
    readonly heldBy: string,
    waitedMs: number,
  ) {
    super(
      'IDEMPOTENCY_CONFLICT',
      `idempotency key "${key}" is in use by run "${heldBy}", which did not finish with it ` +
        `within ${waitedMs} ms; the step was not run`,
    );
  }
}

brand(IdempotencyConflictError, 'IdempotencyConflictError');

/** True when `error` is an {@link IdempotencyConflictError}. */
export function isIdempotencyConflictError(error: unknown): error is IdempotencyConflictError {
  return hasBrand(error, 'IdempotencyConflictError');
}
