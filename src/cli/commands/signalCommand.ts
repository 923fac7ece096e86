import type { Command } from 'commander';
import { assertRunId, assertSignalName } from '../../model/identifiers';
import { terminalSafe } from '../terminalSafe';
import { databaseUrlOf, type CliContext } from '../CliContext';
import { withRuntime } from '../openRuntime';
import { readJsonInput } from '../readJsonInput';

/**
 * `waymark signal <runId> <name> [json]`: stores a signal for a run (a waiting run wakes on
 * the next worker poll). The payload is JSON, inline or from `--file` (`-` for stdin).
 *
 * @example
 * ```sh
 * waymark signal po-1234 approval '{"approved": true, "by": "dana"}'
 * waymark signal po-1234 approval --file approval.json
 * ```
 */
export function registerSignalCommand(program: Command, cli: CliContext): void {
  program
    .command('signal')
    .description('send a signal, with an optional JSON payload, to a run')
    .argument('<runId>', 'the run')
    .argument('<name>', 'the signal name the workflow waits for')
    .argument('[json]', 'the payload, as JSON')
    .option('--file <path>', 'read the payload JSON from a file (- for stdin)')
    .action(
      async (
        runId: string,
        name: string,
        json: string | undefined,
        options: { file?: string },
        command: Command,
      ) => {
        assertRunId(runId, 'the run id');
        assertSignalName(name, 'the signal name');
        const url = databaseUrlOf(command, cli.env);
        const payload = readJsonInput(json, options.file, 'the payload');
        await withRuntime(url, cli.output, (runtime) =>
          runtime.signal(runId, name, payload.given ? payload.value : undefined),
        );
        cli.output.line(`sent signal "${terminalSafe(name)}" to run "${terminalSafe(runId)}"`);
      },
    );
}
