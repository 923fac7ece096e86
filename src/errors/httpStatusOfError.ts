import { isAlreadyDecidedError } from './AlreadyDecidedError';
import { isConfigurationError } from './ConfigurationError';
import { isInvalidRunStateError } from './InvalidRunStateError';
import { isRunConflictError } from './RunConflictError';
import { isRunFinishedError } from './RunFinishedError';
import { isRunNotFoundError } from './RunNotFoundError';
import { isRuntimeClosedError } from './RuntimeClosedError';
import { isSerializationError } from './SerializationError';
import { isStoreUnavailableError } from './StoreUnavailableError';

/**
 * The HTTP status that says what a waymark error means to a client, or undefined for
 * errors that are a server fault (500): an unknown run is 404; a run id taken by another
 * call, a run in the wrong state for the action (one that ended, say), or a second decision
 * for a request already decided, 409; bad input —
 * an invalid argument or option, a value that cannot be stored — 400; a database that does
 * not answer, or a runtime shutting down, 503. One table for the console and the Nest filter.
 *
 * @example
 * ```ts
 * httpStatusOfError(new RunNotFoundError('po-1')); // 404
 * httpStatusOfError(new TypeError('bug')); // undefined
 * ```
 */
export function httpStatusOfError(error: unknown): number | undefined {
  if (isRunNotFoundError(error)) return 404;
  if (
    isRunConflictError(error) ||
    isRunFinishedError(error) ||
    isInvalidRunStateError(error) ||
    isAlreadyDecidedError(error)
  ) {
    return 409;
  }
  if (isConfigurationError(error) || isSerializationError(error)) return 400;
  if (isStoreUnavailableError(error) || isRuntimeClosedError(error)) return 503;
  return undefined;
}
