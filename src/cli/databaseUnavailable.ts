import { isDiskFullError, shownDatabaseUrl, tlsAskedBy } from '../runtime/DatabaseAccess';
import { CliError } from './CliError';
import { firstLine, messageOf } from './describeFailure';
import { ExitCode } from './ExitCode';

/**
 * The one-line error for a database that cannot be reached, or cannot take writes because
 * its disk is full, naming the URL without its password (and the TLS it asked for) and
 * what the driver said.
 *
 * @example
 * ```ts
 * databaseUnavailable('mysql://root:pw@db:3306/app', error);
 * // database mysql://root:***@db:3306/app is unavailable: connect ECONNREFUSED 10.0.0.5:3306
 * // database sqlite:/data/waymark.db cannot take writes (disk full): database or disk is full
 * ```
 */
export function databaseUnavailable(url: string, error: unknown): CliError {
  const cause = (error as { cause?: unknown }).cause ?? error;
  const state = isDiskFullError(error) ? 'cannot take writes (disk full)' : 'is unavailable';
  return new CliError(
    `database ${shownDatabaseUrl(url)} ${state}${overTls(url)}: ${firstLine(messageOf(cause))}`,
    ExitCode.Unavailable,
    { cause: error },
  );
}

function overTls(url: string): string {
  const asked = tlsAskedBy(url);
  return asked === undefined ? '' : ` over TLS (${asked})`;
}
