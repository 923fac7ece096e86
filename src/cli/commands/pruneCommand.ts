import type { Command } from 'commander';
import { isDuration, type Duration } from '../../ground/Duration';
import type { TerminalStatus } from '../../model/RunStatus';
import { databaseUrlOf, type CliContext } from '../CliContext';
import { CliError } from '../CliError';
import { ExitCode } from '../ExitCode';
import { withRuntime } from '../openRuntime';
import { plural } from '../plural';

/**
 * `waymark prune --older-than <duration>`: deletes ended runs (and their history) that ended
 * longer ago, in batches, one sweeper at a time across every process.
 *
 * @example
 * ```sh
 * waymark prune --older-than 30d --status completed
 * ```
 */
export function registerPruneCommand(program: Command, cli: CliContext): void {
  program
    .command('prune')
    .description('delete ended runs older than a duration, in batches')
    .requiredOption('--older-than <duration>', 'e.g. 30d, 12h')
    .option('--status <status...>', 'completed, failed and/or cancelled (default: all three)')
    .option('--workflow <name...>', 'only runs of these workflows')
    .action(
      async (
        options: { olderThan: string; status?: string[]; workflow?: string[] },
        command: Command,
      ) => {
        if (!isDuration(options.olderThan)) {
          throw new CliError(
            `--older-than must be a duration such as 30d or 12h, got "${options.olderThan}"`,
            ExitCode.Usage,
          );
        }
        const url = databaseUrlOf(command, cli.env);
        const result = await withRuntime(url, cli.output, (runtime) =>
          runtime.prune({
            olderThan: options.olderThan as Duration,
            status: options.status as TerminalStatus[] | undefined,
            workflow: options.workflow,
          }),
        );
        if (result.busy) {
          throw new CliError('another process is pruning now; try again later', ExitCode.Failed);
        }
        cli.output.line(`deleted ${plural(result.deleted, 'run')}`);
      },
    );
}
