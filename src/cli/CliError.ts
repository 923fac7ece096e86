import type { ExitCode } from './ExitCode';

/**
 * A failure the CLI reports as one line on stderr, exiting with `exitCode`.
 *
 * @example
 * ```ts
 * throw new CliError('no database: pass --db <url>', ExitCode.Usage);
 * ```
 */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode,
    options: { cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    Object.setPrototypeOf(this, new.target.prototype);
  }
}

/** True when `error` is a {@link CliError}. */
export function isCliError(error: unknown): error is CliError {
  return error instanceof CliError;
}
