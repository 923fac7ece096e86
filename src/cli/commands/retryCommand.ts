import type { Command } from 'commander';
import { assertRunId } from '../../model/identifiers';
import { terminalSafe } from '../terminalSafe';
import { databaseUrlOf, type CliContext } from '../CliContext';
import { withRuntime } from '../openRuntime';

/**
 * `waymark retry <runId>`: puts a failed or parked (`needs_attention`) run back to work from
 * the step that stopped it, with a fresh retry budget. A worker executes it, not the CLI.
 *
 * @example
 * ```sh
 * waymark retry po-1234
 * ```
 */
export function registerRetryCommand(program: Command, cli: CliContext): void {
  program
    .command('retry')
    .description('retry a failed or needs_attention run from the step that stopped it')
    .argument('<runId>', 'the run')
    .action(async (runId: string, _options: unknown, command: Command) => {
      assertRunId(runId, 'the run id');
      const url = databaseUrlOf(command, cli.env);
      await withRuntime(url, cli.output, (runtime) => runtime.retry(runId, { queue: true }));
      cli.output.line(
        `run "${terminalSafe(runId)}" is back to work from the step that stopped it; a worker takes it over`,
      );
    });
}
