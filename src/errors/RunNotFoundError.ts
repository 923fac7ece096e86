import { brand, hasBrand } from './brand';
import { WaymarkError } from './WaymarkError';

/** No run with this id is stored. */
export class RunNotFoundError extends WaymarkError {
  declare readonly code: 'RUN_NOT_FOUND';

  constructor(readonly runId: string) {
    super('RUN_NOT_FOUND', `no run with id "${runId}"`);
  }
}

brand(RunNotFoundError, 'RunNotFoundError');

/** True when `error` is a {@link RunNotFoundError}. */
export function isRunNotFoundError(error: unknown): error is RunNotFoundError {
  return hasBrand(error, 'RunNotFoundError');
}
