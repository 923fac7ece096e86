import { brand, hasBrand } from './brand';
import { WaymarkError } from './WaymarkError';

/** The run has ended (completed, failed or cancelled): it takes no more signals. */
export class RunFinishedError extends WaymarkError {
  declare readonly code: 'RUN_FINISHED';

  constructor(
    readonly runId: string,
    readonly status: string,
    action: string,
  ) {
    super('RUN_FINISHED', `cannot ${action} run "${runId}": it is already ${status}`);
  }
}

brand(RunFinishedError, 'RunFinishedError');

/** True when `error` is a {@link RunFinishedError}. */
export function isRunFinishedError(error: unknown): error is RunFinishedError {
  return hasBrand(error, 'RunFinishedError');
}
