import type { Command } from 'commander';
import { CliError } from './CliError';
import { ExitCode } from './ExitCode';
import type { Output } from './Output';

/** What every command is given: where to write, and the environment it runs in. */
export interface CliContext {
  readonly output: Output;
  readonly env: NodeJS.ProcessEnv;
}

/** The environment variable naming the database when `--db` is not given. */
export const DATABASE_URL_VARIABLE = 'WAYMARK_DATABASE_URL';

/**
 * The database URL a command runs against: `--db`, else `WAYMARK_DATABASE_URL`; neither is
 * a usage error.
 *
 * @example
 * ```ts
 * const url = databaseUrlOf(command, process.env); // 'sqlite:./waymark.db'
 * ```
 */
export function databaseUrlOf(command: Command, env: NodeJS.ProcessEnv): string {
  const { db } = command.optsWithGlobals<{ db?: string }>();
  const url = db ?? env[DATABASE_URL_VARIABLE];
  if (url === undefined || url.trim() === '') {
    throw new CliError(
      `no database: pass --db <url> or set ${DATABASE_URL_VARIABLE} ` +
        `(e.g. sqlite:./waymark.db or mysql://user:pass@host:3306/app)`,
      ExitCode.Usage,
    );
  }
  return url;
}
