import { brand, hasBrand } from './brand';
import { WaymarkError } from './WaymarkError';

/** The run was cancelled by `runtime.cancel()`; its steps stop at the next boundary. */
export class RunCancelledError extends WaymarkError {
  declare readonly code: 'RUN_CANCELLED';

  constructor(
    readonly runId: string,
    readonly reason?: string,
  ) {
    super('RUN_CANCELLED', `run "${runId}" was cancelled${reason ? `: ${reason}` : ''}`);
  }
}

brand(RunCancelledError, 'RunCancelledError');

/** True when `error` is a {@link RunCancelledError}. */
export function isRunCancelledError(error: unknown): error is RunCancelledError {
  return hasBrand(error, 'RunCancelledError');
}
