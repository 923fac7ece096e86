import { brand, hasBrand } from './brand';
import { WaymarkError } from './WaymarkError';

/** An operator action does not apply to the run in its current status. */
export class InvalidRunStateError extends WaymarkError {
  declare readonly code: 'INVALID_RUN_STATE';

  constructor(
    readonly runId: string,
    readonly status: string,
    action: string,
    expected: string,
  ) {
    super('INVALID_RUN_STATE', `cannot ${action} run "${runId}": it is ${status}; ${expected}`);
  }
}

brand(InvalidRunStateError, 'InvalidRunStateError');

/** True when `error` is an {@link InvalidRunStateError}. */
export function isInvalidRunStateError(error: unknown): error is InvalidRunStateError {
  return hasBrand(error, 'InvalidRunStateError');
}
