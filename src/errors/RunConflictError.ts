import { brand, hasBrand } from './brand';
import { WaymarkError } from './WaymarkError';

/** A run id was reused for a different workflow or with different arguments. */
export class RunConflictError extends WaymarkError {
  declare readonly code: 'RUN_CONFLICT';

  constructor(
    readonly runId: string,
    readonly reason: string,
  ) {
    super('RUN_CONFLICT', `run "${runId}" already exists ${reason}`);
  }
}

brand(RunConflictError, 'RunConflictError');

/** True when `error` is a {@link RunConflictError}. */
export function isRunConflictError(error: unknown): error is RunConflictError {
  return hasBrand(error, 'RunConflictError');
}
