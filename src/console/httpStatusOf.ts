import { isConfigurationError } from '../errors/ConfigurationError';
import { isInvalidRunStateError } from '../errors/InvalidRunStateError';
import { isRunFinishedError } from '../errors/RunFinishedError';
import { isRunNotFoundError } from '../errors/RunNotFoundError';
import { isSerializationError } from '../errors/SerializationError';
import { isStoreUnavailableError } from '../errors/StoreUnavailableError';
import { isConsoleHttpError } from './ConsoleHttpError';

/**
 * The HTTP status for what an API call threw: an unknown run is 404, an action on a run
 * that ended (or is in the wrong state for it) 409, a bad filter or an unstorable payload
 * 400, a database that does not answer 503, anything else 500.
 *
 * @example
 * ```ts
 * httpStatusOf(new RunNotFoundError('po-1')); // 404
 * ```
 */
export function httpStatusOf(error: unknown): number {
  if (isConsoleHttpError(error)) return error.status;
  if (isRunNotFoundError(error)) return 404;
  if (isRunFinishedError(error) || isInvalidRunStateError(error)) return 409;
  if (isConfigurationError(error) || isSerializationError(error)) return 400;
  if (isStoreUnavailableError(error)) return 503;
  return 500;
}
