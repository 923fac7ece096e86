#!/usr/bin/env node
/**
 * The `waymark` command line: operate runs stored in a database (`--db <url>` or
 * `WAYMARK_DATABASE_URL`), check workflow modules, and run workers. One command per file in
 * `commands/`; this file only wires them to commander.
 *
 * Exit codes (see `ExitCode`):
 *   0  ok.
 *   1  the operation failed: an unknown run, a run in the wrong state for the action (a retry
 *      of a waiting run, a signal to a completed one), a fork id already taken, `check` found
 *      problems, `worker` could not load its module.
 *   2  usage: a missing or malformed argument or option, no database given, a malformed
 *      database URL, malformed JSON (the message names its position), a value over the size
 *      limit.
 *   3  database unavailable: it cannot be reached (an outage is waited out for 5 s, a
 *      worker's for storeRetryTimeout), it cannot take writes (its disk is full), or it has
 *      no (or outdated) waymark tables — run `waymark migrate` first. Every command but
 *      `migrate` and `worker` opens the database without migrating it.
 */
import 'reflect-metadata';
import { Command } from 'commander';
import { DATABASE_URL_VARIABLE, type CliContext } from './CliContext';
import { registerCancelCommand } from './commands/cancelCommand';
import { registerCheckCommand } from './commands/checkCommand';
import { registerConsoleCommand } from './commands/consoleCommand';
import { registerMcpCommand } from './commands/mcpCommand';
import { registerForkCommand } from './commands/forkCommand';
import { registerReplayCommand } from './commands/replayCommand';
import { registerMigrateCommand } from './commands/migrateCommand';
import { registerQueuesCommand } from './commands/queuesCommand';
import { registerResolveCommand } from './commands/resolveCommand';
import { registerRetryCommand } from './commands/retryCommand';
import { registerPruneCommand } from './commands/pruneCommand';
import { registerRunsCommand } from './commands/runsCommand';
import { registerSchedulesCommand } from './commands/schedulesCommand';
import { registerShowCommand } from './commands/showCommand';
import { registerSignalCommand } from './commands/signalCommand';
import { registerWorkerCommand } from './commands/workerCommand';
import { describeFailure } from './describeFailure';
import { ExitCode } from './ExitCode';
import { Output } from './Output';
import { packageVersion } from './packageVersion';

/**
 * The `waymark` program with every command registered. Failures are thrown, not exited on,
 * so {@link main} maps them to exit codes.
 *
 * @example
 * ```ts
 * await createProgram(cli).parseAsync(['node', 'waymark', 'runs', '--status', 'failed']);
 * ```
 */
export function createProgram(cli: CliContext): Command {
  const program = new Command('waymark')
    .description('Operate waymark: inspect and act on runs, migrate, check and run workflows.')
    .version(packageVersion())
    .option('--db <url>', `database URL (default: $${DATABASE_URL_VARIABLE})`)
    .exitOverride()
    .showHelpAfterError('(add --help for usage)');
  for (const register of [
    registerRunsCommand,
    registerQueuesCommand,
    registerShowCommand,
    registerSignalCommand,
    registerRetryCommand,
    registerResolveCommand,
    registerCancelCommand,
    registerForkCommand,
    registerReplayCommand,
    registerMigrateCommand,
    registerCheckCommand,
    registerWorkerCommand,
    registerConsoleCommand,
    registerMcpCommand,
    registerSchedulesCommand,
    registerPruneCommand,
  ]) {
    register(program, cli);
  }
  return program;
}

/**
 * Runs the CLI on `argv` (as `process.argv`) and returns the exit code; a failure is printed
 * as one line on stderr.
 */
export async function main(argv: readonly string[], cli: CliContext): Promise<ExitCode> {
  try {
    await createProgram(cli).parseAsync([...argv]);
    return ExitCode.Ok;
  } catch (error) {
    const failure = describeFailure(error);
    if (failure.message !== undefined) cli.output.error(failure.message);
    return failure.exitCode;
  }
}

if (require.main === module) {
  const output = new Output(process.stdout, process.stderr, process.env);
  void main(process.argv, { output, env: process.env }).then((code) => {
    process.exitCode = code;
  });
}
