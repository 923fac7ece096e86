/**
 * Exit codes of the `waymark` command line, for scripts and alerting.
 *
 * @example
 * ```sh
 * waymark retry po-1234 || [ $? -eq 3 ] && echo "database down, try again later"
 * ```
 */
export const ExitCode = {
  /** The command did what it was asked. */
  Ok: 0,
  /** The operation failed: an unknown run, a run in the wrong state, `check` found problems. */
  Failed: 1,
  /** Usage: a missing or malformed argument, option, database URL or JSON value. */
  Usage: 2,
  /**
   * The database is unreachable, cannot take writes (its disk is full), or its waymark
   * tables are missing or behind.
   */
  Unavailable: 3,
} as const;

/** One of the {@link ExitCode} values. */
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];
