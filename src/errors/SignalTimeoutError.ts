import { brand, hasBrand } from './brand';
import { WaymarkError } from './WaymarkError';

/** No signal `name` arrived before the wait's timeout. Catch it to take another branch. */
export class SignalTimeoutError extends WaymarkError {
  declare readonly code: 'SIGNAL_TIMEOUT';

  constructor(
    readonly runId: string,
    readonly signal: string,
    readonly timeoutMs: number,
  ) {
    super(
      'SIGNAL_TIMEOUT',
      `run "${runId}" waited ${timeoutMs} ms for signal "${signal}" and none came`,
    );
  }
}

brand(SignalTimeoutError, 'SignalTimeoutError');

/** True when `error` is a {@link SignalTimeoutError}. */
export function isSignalTimeoutError(error: unknown): error is SignalTimeoutError {
  return hasBrand(error, 'SignalTimeoutError');
}
