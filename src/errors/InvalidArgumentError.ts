import { brand, hasBrand } from './brand';
import { ConfigurationError } from './ConfigurationError';

/**
 * An argument of a call is malformed: a run id, a signal name, a list cursor, a page size.
 * The message names the call, the argument and what is wrong with it; nothing was read or
 * written. It is a {@link ConfigurationError} too, so code that treats those as bad input
 * (the CLI's exit code 2, the console's 400) treats this one the same way.
 *
 * @example
 * ```ts
 * try { await runtime.signal(runId, name, payload); }
 * catch (e) { if (isInvalidArgumentError(e)) return res.status(400).send(e.message); throw e; }
 * ```
 */
export class InvalidArgumentError extends ConfigurationError {
  declare readonly code: 'INVALID_ARGUMENT';

  constructor(
    /** Where and which argument, e.g. `signal(): runId`. */
    readonly argument: string,
    problem: string,
  ) {
    super(`${argument} ${problem}`, undefined, 'INVALID_ARGUMENT');
  }
}

brand(InvalidArgumentError, 'InvalidArgumentError');

/** True when `error` is an {@link InvalidArgumentError}. */
export function isInvalidArgumentError(error: unknown): error is InvalidArgumentError {
  return hasBrand(error, 'InvalidArgumentError');
}
