import { brand, hasBrand } from './brand';
import { WaymarkError } from './WaymarkError';

/**
 * An `atMostOnce` step started in a process that died before recording how it ended: its
 * effect may or may not have happened, so it is not run again. Find out (ask the other
 * system), then decide in the workflow, or resolve the parked run with `resolveStep()`.
 */
export class UnknownOutcomeError extends WaymarkError {
  declare readonly code: 'UNKNOWN_OUTCOME';

  constructor(
    readonly runId: string,
    readonly seq: number,
    readonly step: string,
    readonly startedAt: Date,
  ) {
    super(
      'UNKNOWN_OUTCOME',
      `step "${step}" (#${seq}) of run "${runId}" started at ${startedAt.toISOString()} and its ` +
        'process died before recording the outcome; it is at-most-once, so it was not run again',
    );
  }
}

brand(UnknownOutcomeError, 'UnknownOutcomeError');

/** True when `error` is an {@link UnknownOutcomeError}. */
export function isUnknownOutcomeError(error: unknown): error is UnknownOutcomeError {
  return hasBrand(error, 'UnknownOutcomeError');
}
