import { brand, hasBrand } from './brand';
import { WaymarkError } from './WaymarkError';

/** A run-only feature of `WorkflowContext` was used outside a run (or outside a step). */
export class NotInRunError extends WaymarkError {
  declare readonly code: 'NOT_IN_RUN';

  constructor(what: string, where: 'run' | 'step', kind = 'step of a run') {
    super(
      'NOT_IN_RUN',
      `${what} is only available inside a ${where === 'run' ? 'workflow run' : kind}`,
    );
  }
}

brand(NotInRunError, 'NotInRunError');

/** True when `error` is a {@link NotInRunError}. */
export function isNotInRunError(error: unknown): error is NotInRunError {
  return hasBrand(error, 'NotInRunError');
}
