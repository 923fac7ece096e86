import { httpStatusOfError } from '../errors/httpStatusOfError';
import { isConsoleHttpError } from './ConsoleHttpError';

/**
 * The HTTP status for what an API call threw: the console's own (a 401, a 413, a malformed
 * request), else waymark's table ({@link httpStatusOfError}: 404 unknown run, 409 wrong
 * state, 400 bad input, 503 database unavailable), else 500.
 *
 * @example
 * ```ts
 * httpStatusOf(new RunNotFoundError('po-1')); // 404
 * ```
 */
export function httpStatusOf(error: unknown): number {
  if (isConsoleHttpError(error)) return error.status;
  return httpStatusOfError(error) ?? 500;
}
