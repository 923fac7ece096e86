import { brand, hasBrand } from './brand';
import { WaymarkError } from './WaymarkError';

/**
 * On resume, the workflow called a different step at `seq` than the one recorded there:
 * the code changed in a way that is not replay-safe. The run goes to `needs_attention`
 * and its history is left untouched.
 */
export class NonDeterminismError extends WaymarkError {
  declare readonly code: 'NON_DETERMINISM';

  constructor(
    readonly runId: string,
    readonly seq: number,
    readonly expected: string,
    readonly found: string,
  ) {
    super(
      'NON_DETERMINISM',
      `run "${runId}" is not replayable at step #${seq}: history has "${expected}", ` +
        `the code now calls "${found}". Use patched() for code changes that reorder steps.`,
    );
  }
}

brand(NonDeterminismError, 'NonDeterminismError');

/** True when `error` is a {@link NonDeterminismError}. */
export function isNonDeterminismError(error: unknown): error is NonDeterminismError {
  return hasBrand(error, 'NonDeterminismError');
}
