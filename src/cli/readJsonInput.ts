import { readFileSync } from 'node:fs';
import { CliError } from './CliError';
import { ExitCode } from './ExitCode';
import { firstLine, messageOf } from './describeFailure';
import { parseJsonArgument } from './parseJsonArgument';

/** A JSON value an operator gave, inline or in a file; `given` is false when neither was. */
export type JsonInput =
  { readonly given: true; readonly value: unknown } | { readonly given: false };

/**
 * Reads the JSON value of `signal` and `resolve`: the inline argument, or the file named by
 * `--file` (`-` reads stdin). Both at once, an unreadable file or malformed JSON is a usage
 * error.
 *
 * @example
 * ```ts
 * readJsonInput('{"approved":true}', undefined, 'the payload'); // { given: true, value: { approved: true } }
 * ```
 */
export function readJsonInput(
  inline: string | undefined,
  file: string | undefined,
  what: string,
): JsonInput {
  if (inline !== undefined && file !== undefined) {
    throw new CliError(`give ${what} inline or with --file, not both`, ExitCode.Usage);
  }
  if (inline !== undefined) return { given: true, value: parseJsonArgument(inline, what) };
  if (file === undefined) return { given: false };
  let text: string;
  try {
    text = readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${firstLine(messageOf(error))}`, ExitCode.Usage, {
      cause: error,
    });
  }
  return { given: true, value: parseJsonArgument(text, file === '-' ? `${what} on stdin` : file) };
}
