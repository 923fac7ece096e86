import { CliError } from './CliError';
import { ExitCode } from './ExitCode';
import { locateJsonError } from './locateJsonError';

/**
 * Parses a JSON value given on the command line or in a file; malformed JSON is a usage
 * error naming where it breaks.
 *
 * @param what - names the value in the message, e.g. `'the signal payload'`.
 * @example
 * ```ts
 * parseJsonArgument('{"approved": true,}', 'the payload');
 * // CliError: the payload is not valid JSON: unexpected "}" at position 18 (line 1, column 19)
 * ```
 */
export function parseJsonArgument(text: string, what: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const at = locateJsonError(text);
    const where = at
      ? `unexpected ${at.found} at position ${at.position} (line ${at.line}, column ${at.column})`
      : (error as Error).message;
    throw new CliError(`${what} is not valid JSON: ${where}`, ExitCode.Usage, { cause: error });
  }
}
