import type { Logger } from '../ground/Logger';
import { firstLine, messageOf } from './describeFailure';
import type { Output } from './Output';

/**
 * The runtime's warnings and errors as one line each on stderr; debug and info dropped.
 *
 * @example
 * ```ts
 * await Waymark.create({ database: url, logger: cliLogger(output) });
 * ```
 */
export function cliLogger(output: Output): Logger {
  const write = (message: string, fields?: Record<string, unknown>): void => {
    const error = fields?.error;
    output.warn(error === undefined ? message : `${message}: ${firstLine(messageOf(error))}`);
  };
  return { debug: () => undefined, info: () => undefined, warn: write, error: write };
}
