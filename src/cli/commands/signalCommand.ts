import type { Command } from 'commander';
import { assertRunId, assertSignalKey, assertSignalName } from '../../model/identifiers';
import { terminalSafe } from '../terminalSafe';
import { databaseUrlOf, type CliContext } from '../CliContext';
import { withRuntime } from '../openRuntime';
import { readJsonInput } from '../readJsonInput';

/**
 * `waymark signal <runId> <name> [json]`: stores a signal for a run (a waiting run wakes on
 * the next worker poll). The payload is JSON, inline or from `--file` (`-` for stdin). With
 * `--key`, the run gets one signal per name and key: sent again, it is stored once.
 *
 * @example
 * ```sh
 * waymark signal po-1234 approval '{"approved": true, "by": "dana"}'
 * waymark signal po-1234 approval --file approval.json
 * waymark signal chat-42 message '{"text": "hi"}' --key msg-7f3a
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
    .option('--key <key>', 'an idempotency key: a repeat with the same key is not stored')
    .action(
      async (
        runId: string,
        name: string,
        json: string | undefined,
        options: { file?: string; key?: string },
        command: Command,
      ) => {
        assertRunId(runId, 'the run id');
        assertSignalName(name, 'the signal name');
        if (options.key !== undefined) assertSignalKey(options.key, '--key');
        const url = databaseUrlOf(command, cli.env);
        const payload = readJsonInput(json, options.file, 'the payload');
        const signalOptions =
          options.key === undefined ? undefined : { idempotencyKey: options.key };
        const { duplicate } = await withRuntime(url, cli.output, (runtime) =>
          runtime.signal(runId, name, payload.given ? payload.value : undefined, signalOptions),
        );
        const what = `signal "${terminalSafe(name)}" to run "${terminalSafe(runId)}"`;
        cli.output.line(
          duplicate
            ? `already sent ${what} with key "${terminalSafe(options.key ?? '')}": not stored again`
            : `sent ${what}`,
        );
      },
    );
}
