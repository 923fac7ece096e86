import { brand, hasBrand } from './brand';
import { formatDuration } from '../ground/Duration';
import { WaymarkError } from './WaymarkError';

/**
 * A step ran longer than its `@Step({ timeout })`. Its `ctx.signal` was aborted and a late
 * result is discarded. Transient for the retry classifier.
 */
export class StepTimeoutError extends WaymarkError {
  declare readonly code: 'STEP_TIMEOUT';

  /** Name of the step that timed out. */
  readonly step: string;
  /** The timeout it exceeded, in milliseconds. */
  readonly timeoutMs: number;

  constructor(step: string, timeoutMs: number) {
    super('STEP_TIMEOUT', `step "${step}" timed out after ${formatDuration(timeoutMs)}`);
    this.step = step;
    this.timeoutMs = timeoutMs;
  }
}

brand(StepTimeoutError, 'StepTimeoutError');

/** True when `error` is a {@link StepTimeoutError}. */
export function isStepTimeoutError(error: unknown): error is StepTimeoutError {
  return hasBrand(error, 'StepTimeoutError');
}
