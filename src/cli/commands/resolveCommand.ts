import type { Command } from 'commander';
import { assertRunId } from '../../model/identifiers';
import { terminalSafe } from '../terminalSafe';
import { CliError } from '../CliError';
import { databaseUrlOf, type CliContext } from '../CliContext';
import { ExitCode } from '../ExitCode';
import { withRuntime } from '../openRuntime';
import { readJsonInput } from '../readJsonInput';

/**
 * `waymark resolve <runId> <json>`: records what an operator found out (JSON) as the outcome
 * of the step a parked run waits at; a worker continues the run from the next step.
 *
 * @example
 * ```sh
 * waymark resolve po-1234 '{"receiptId": "R-889"}'   # the ERP did accept it
 * ```
 */
export function registerResolveCommand(program: Command, cli: CliContext): void {
  program
    .command('resolve')
    .description("record a parked step's outcome (JSON) and continue its run")
    .argument('<runId>', 'the run')
    .argument('[json]', 'the step outcome, as JSON')
    .option('--file <path>', 'read the outcome JSON from a file (- for stdin)')
    .action(
      async (
        runId: string,
        json: string | undefined,
        options: { file?: string },
        command: Command,
      ) => {
        assertRunId(runId, 'the run id');
        const url = databaseUrlOf(command, cli.env);
        const outcome = readJsonInput(json, options.file, 'the step outcome');
        if (!outcome.given) {
          throw new CliError(
            'give the step outcome as JSON, inline or with --file (e.g. \'{"receiptId": "R-889"}\')',
            ExitCode.Usage,
          );
        }
        await withRuntime(url, cli.output, (runtime) =>
          runtime.resolveStep(runId, outcome.value, { queue: true }),
        );
        cli.output.line(
          `resolved the parked step of run "${terminalSafe(runId)}"; a worker continues it from the next step`,
        );
      },
    );
}
