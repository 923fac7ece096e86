import { brand, hasBrand } from './brand';
import { WaymarkError } from './WaymarkError';

/** A workflow was called but no waymark runtime is open in this process. */
export class NoRuntimeError extends WaymarkError {
  declare readonly code: 'NO_RUNTIME';

  constructor(workflow: string) {
    super(
      'NO_RUNTIME',
      `cannot start workflow "${workflow}": no waymark runtime is open; ` +
        `call await Waymark.create({ database }) first`,
    );
  }
}

brand(NoRuntimeError, 'NoRuntimeError');

/** True when `error` is a {@link NoRuntimeError}. */
export function isNoRuntimeError(error: unknown): error is NoRuntimeError {
  return hasBrand(error, 'NoRuntimeError');
}
