import type { Command } from 'commander';
import { checkStreamOrigins } from '../../console/streamOrigins';
import { startConsole } from '../../console/startConsole';
import { databaseUrlOf, type CliContext } from '../CliContext';
import { listenOrClose } from '../listenOrClose';
import { openRuntime } from '../openRuntime';
import { integerIn } from '../optionParsers';
import {
  checkHost,
  CONSOLE_TOKEN_VARIABLE,
  CONSOLE_TOKENS_VARIABLE,
  isLoopback,
  shownToken,
  tokenOf,
  tokensOf,
} from '../tokenOptions';
import { stopSignal } from '../stopSignal';

export { CONSOLE_TOKEN_VARIABLE, CONSOLE_TOKENS_VARIABLE } from '../tokenOptions';

/** The environment variable holding the application's `streamTokenSecret`. */
export const STREAM_TOKEN_SECRET_VARIABLE = 'WAYMARK_STREAM_TOKEN_SECRET';

interface ConsoleCommandOptions {
  port: number;
  host: string;
  token?: string;
  tokensFile?: string;
  streamOrigin: string[];
}

/**
 * `waymark console`: serves the web console (runs, step timelines, approvals) for the
 * database until SIGTERM or SIGINT. It executes no run: it reads runs and sends signals and
 * cancellations, which workers elsewhere act on. API calls need a token: the admin one
 * (`--token`, `WAYMARK_CONSOLE_TOKEN`, or a new one unless tokens with roles are given), or
 * one of the hashed tokens with a role of `--tokens-file` and `WAYMARK_CONSOLE_TOKENS`
 * (`role:sha256hex[:name]` each). The URL to open carries a new token; one from
 * `WAYMARK_CONSOLE_TOKEN` is never printed (the URL shows `#token=<WAYMARK_CONSOLE_TOKEN>`),
 * so it stays out of journald and container logs.
 *
 * @example
 * ```sh
 * waymark console --db sqlite:./waymark.db --port 4100
 * # waymark console: http://127.0.0.1:4100/#token=5f0c…
 * ```
 */
export function registerConsoleCommand(program: Command, cli: CliContext): void {
  program
    .command('console')
    .description('serve the web console: runs, step timelines, approvals')
    .option('--port <n>', 'port to listen on (0: any free port)', integerIn(0, 65_535), 4100)
    .option(
      '--host <address>',
      'address to listen on; the default reaches only this machine',
      '127.0.0.1',
    )
    .option(
      '--token <token>',
      `token API calls need, 16 characters or more (prefer $${CONSOLE_TOKEN_VARIABLE}: ` +
        'a command line is visible to other users; default: a new one)',
    )
    .option(
      '--tokens-file <path>',
      `tokens with a role, one per line as role:sha256hex[:name] (role viewer, operator or ` +
        `admin; also read from $${CONSOLE_TOKENS_VARIABLE})`,
    )
    .option(
      '--stream-origin <origin>',
      `a site whose pages may read /api/streams/:run/:stream?token= with the application's ` +
        `stream tokens (repeat it; needs $${STREAM_TOKEN_SECRET_VARIABLE})`,
      (origin: string, previous: string[]) => [...previous, origin],
      [],
    )
    .action(async (options: ConsoleCommandOptions, command: Command) => {
      const url = databaseUrlOf(command, cli.env);
      checkHost(options.host);
      const token = tokenOf(options.token, cli);
      const tokens = tokensOf(options.tokensFile, cli);
      checkStreamOrigins(options.streamOrigin, '--stream-origin');
      const streamTokenSecret = cli.env[STREAM_TOKEN_SECRET_VARIABLE];
      if (options.streamOrigin.length > 0 && streamTokenSecret === undefined) {
        cli.output.warn(
          `--stream-origin without $${STREAM_TOKEN_SECRET_VARIABLE}: this console accepts no ` +
            "stream token of the application's (set the application's streamTokenSecret)",
        );
      }
      const runtime = await openRuntime(url, cli.output, { streamTokenSecret });
      const stopped = stopSignal();
      const streamOrigins = options.streamOrigin;
      const served = await listenOrClose(runtime, options, () =>
        startConsole(runtime, { ...options, token, tokens, streamOrigins }),
      );
      if (!isLoopback(options.host)) {
        cli.output.warn(
          `listening on ${options.host}: anyone who reaches this port and has the token can signal and cancel runs`,
        );
      }
      const shown = shownToken(options.token, token, served.token);
      cli.output.line(`waymark console: ${served.url}#token=${shown}`);
      const signal = await stopped;
      cli.output.line(`${signal}: stopping the console`);
      await served.close();
      await runtime.close({ grace: 0 });
      cli.output.line('console stopped');
    });
}
