import { CommanderError } from 'commander';
import { isConfigurationError } from '../errors/ConfigurationError';
import { isMigrationLockTimeoutError } from '../errors/MigrationLockTimeoutError';
import { isSerializationError } from '../errors/SerializationError';
import { isStoreUnavailableError } from '../errors/StoreUnavailableError';
import { isTransactionPoolerError } from '../errors/TransactionPoolerError';
import { isCliError } from './CliError';
import { ExitCode } from './ExitCode';

/** How the CLI reports a failure: the exit code and one line (none when commander printed it). */
export interface Failure {
  readonly exitCode: ExitCode;
  readonly message: string | undefined;
}

/**
 * Maps whatever a command threw to an exit code and a one-line message: wrong arguments,
 * options, URLs (also one missing `pgbouncer=true` behind a transaction pooler), JSON or
 * values over the size limit are usage errors (2); a database that
 * does not answer, or whose migration lock another process holds, is 3; anything else — an unknown run, a run in the wrong state — failed (1).
 *
 * @example
 * ```ts
 * describeFailure(new RunNotFoundError('po-1')); // { exitCode: 1, message: 'no run with id "po-1"' }
 * ```
 */
export function describeFailure(error: unknown): Failure {
  if (error instanceof CommanderError) {
    // Commander printed its message already; `--help` and `--version` end with exit code 0.
    return { exitCode: error.exitCode === 0 ? ExitCode.Ok : ExitCode.Usage, message: undefined };
  }
  if (isCliError(error)) return { exitCode: error.exitCode, message: error.message };
  if (
    isConfigurationError(error) ||
    isSerializationError(error) ||
    isTransactionPoolerError(error)
  ) {
    return { exitCode: ExitCode.Usage, message: error.message };
  }
  if (isStoreUnavailableError(error) || isMigrationLockTimeoutError(error)) {
    return { exitCode: ExitCode.Unavailable, message: firstLine(error.message) };
  }
  return { exitCode: ExitCode.Failed, message: firstLine(messageOf(error)) };
}

/** The first line of a message: errors are reported on one line. */
export function firstLine(text: string): string {
  return text.split('\n', 1)[0].trim();
}

/**
 * An error's message, or its `code` when it has none (a refused connection may come as an
 * `AggregateError` with an empty message).
 */
export function messageOf(error: unknown): string {
  for (let e: unknown = error, depth = 0; e && depth < 4; depth++) {
    const record = e as { message?: unknown; code?: unknown; errors?: unknown; cause?: unknown };
    if (typeof record.message === 'string' && record.message.trim() !== '') return record.message;
    if (typeof record.code === 'string') return record.code;
    e = Array.isArray(record.errors) ? record.errors[0] : record.cause;
  }
  return String(error);
}
