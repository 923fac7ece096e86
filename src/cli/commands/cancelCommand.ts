import type { Command } from 'commander';
import { assertRunId } from '../../model/identifiers';
import { terminalSafe } from '../terminalSafe';
import { databaseUrlOf, type CliContext } from '../CliContext';
import { withRuntime } from '../openRuntime';

/**
 * `waymark cancel <runId>`: ends a run that has not ended; a process executing it stops at
 * its next step boundary and writes nothing more.
 *
 * @example
 * ```sh
 * waymark cancel po-1234 --reason "duplicate order"
 * ```
 */
export function registerCancelCommand(program: Command, cli: CliContext): void {
  program
    .command('cancel')
    .description('cancel a run that has not ended')
    .argument('<runId>', 'the run')
    .option('--reason <text>', 'why, stored with the run')
    .action(async (runId: string, options: { reason?: string }, command: Command) => {
      assertRunId(runId, 'the run id');
      const url = databaseUrlOf(command, cli.env);
      await withRuntime(url, cli.output, (runtime) => runtime.cancel(runId, options.reason));
      cli.output.line(`cancelled run "${terminalSafe(runId)}"`);
    });
}
