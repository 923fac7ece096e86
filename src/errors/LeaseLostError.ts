import { brand, hasBrand } from './brand';
import { WaymarkError } from './WaymarkError';

/**
 * Another process took this run over (its fencing epoch moved on), so this process must
 * stop the run and write nothing more for it.
 */
export class LeaseLostError extends WaymarkError {
  declare readonly code: 'LEASE_LOST';

  constructor(
    readonly runId: string,
    readonly epoch: number,
  ) {
    super(
      'LEASE_LOST',
      `run "${runId}" was taken over by another process (epoch ${epoch} is stale)`,
    );
  }
}

brand(LeaseLostError, 'LeaseLostError');

/** True when `error` is a {@link LeaseLostError}. */
export function isLeaseLostError(error: unknown): error is LeaseLostError {
  return hasBrand(error, 'LeaseLostError');
}
