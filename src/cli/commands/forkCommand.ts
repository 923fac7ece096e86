import type { Command } from 'commander';
import { assertRunId } from '../../model/identifiers';
import { terminalSafe } from '../terminalSafe';
import { databaseUrlOf, type CliContext } from '../CliContext';
import { withRuntime } from '../openRuntime';
import { integerIn } from '../optionParsers';

interface ForkOptions {
  from: number;
  id?: string;
  json?: boolean;
}

/**
 * `waymark fork <runId> --from <seq>`: a new run with a copy of the history before `seq`,
 * continued from there by a worker on the code deployed now; the original is untouched.
 *
 * @example
 * ```sh
 * waymark fork research-42 --from 3 --id research-42-retake
 * ```
 */
export function registerForkCommand(program: Command, cli: CliContext): void {
  program
    .command('fork')
    .description('copy a run up to a step into a new run that continues from there')
    .argument('<runId>', 'the run to copy')
    .requiredOption(
      '--from <seq>',
      'the first step to run anew; steps before it are copied',
      integerIn(0, Number.MAX_SAFE_INTEGER),
    )
    .option('--id <newRunId>', 'the new run id (default: <runId>:fork-<random>)')
    .option('--json', 'print one JSON object { runId, forkedFrom, fromSeq } for scripts')
    .action(async (runId: string, options: ForkOptions, command: Command) => {
      assertRunId(runId, 'the run id');
      if (options.id !== undefined) assertRunId(options.id, '--id');
      const url = databaseUrlOf(command, cli.env);
      const fork = await withRuntime(url, cli.output, (runtime) =>
        runtime.fork(runId, { fromSeq: options.from, newRunId: options.id, queue: true }),
      );
      if (options.json) {
        cli.output.json({ runId: fork.runId, forkedFrom: runId, fromSeq: options.from });
        return;
      }
      cli.output.line(
        `forked run "${terminalSafe(runId)}" at #${options.from} as "${terminalSafe(fork.runId)}"; ` +
          'a worker continues it',
      );
    });
}
