import type { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { consoleToken } from '../../console/consoleToken';
import { parseConsoleTokens, type ConsoleTokenHash } from '../../console/consoleTokens';
import { checkStreamOrigins } from '../../console/streamOrigins';
import { startConsole, type RunningConsole } from '../../console/startConsole';
import type { WaymarkRuntime } from '../../runtime/WaymarkRuntime';
import { databaseUrlOf, type CliContext } from '../CliContext';
import { CliError } from '../CliError';
import { messageOf } from '../describeFailure';
import { ExitCode } from '../ExitCode';
import { openRuntime } from '../openRuntime';
import { integerIn } from '../optionParsers';
import { stopSignal } from '../stopSignal';

/** The environment variable holding the console token when `--token` is not given. */
export const CONSOLE_TOKEN_VARIABLE = 'WAYMARK_CONSOLE_TOKEN';

/** The environment variable holding hashed tokens with roles, as a tokens file does. */
export const CONSOLE_TOKENS_VARIABLE = 'WAYMARK_CONSOLE_TOKENS';

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
      const served = await serve(runtime, { ...options, token, tokens, streamOrigins });
      if (!isLoopback(options.host)) {
        cli.output.warn(
          `listening on ${options.host}: anyone who reaches this port and has the token can signal and cancel runs`,
        );
      }
      const fromEnv = options.token === undefined && token !== undefined;
      // With only tokens with roles, each holder pastes their own.
      const shown = fromEnv ? `<${CONSOLE_TOKEN_VARIABLE}>` : (served.token ?? '<your-token>');
      cli.output.line(`waymark console: ${served.url}#token=${shown}`);
      const signal = await stopped;
      cli.output.line(`${signal}: stopping the console`);
      await served.close();
      await runtime.close({ grace: 0 });
      cli.output.line('console stopped');
    });
}

async function serve(
  runtime: WaymarkRuntime,
  options: ConsoleCommandOptions & {
    tokens: ConsoleTokenHash[] | undefined;
    streamOrigins: string[];
  },
): Promise<RunningConsole> {
  try {
    return await startConsole(runtime, options);
  } catch (error) {
    await runtime.close({ grace: 0 });
    throw new CliError(
      `cannot listen on ${options.host}:${options.port}: ${messageOf(error)}`,
      ExitCode.Failed,
      { cause: error },
    );
  }
}

/**
 * `--token`, else `WAYMARK_CONSOLE_TOKEN`, else none (the console generates one), checked
 * before anything is opened. `--token` is visible to every user of the machine in `ps`.
 */
function tokenOf(option: string | undefined, cli: CliContext): string | undefined {
  if (option !== undefined) {
    cli.output.warn(
      `--token is visible to other users of this machine in the process list (ps); ` +
        `set ${CONSOLE_TOKEN_VARIABLE} instead`,
    );
    return consoleToken(option, '--token');
  }
  const variable = fromEnvironment(cli);
  return variable === undefined ? undefined : consoleToken(variable, CONSOLE_TOKEN_VARIABLE);
}

/** `WAYMARK_CONSOLE_TOKEN` trimmed, or undefined when it is unset or blank. */
function fromEnvironment(cli: CliContext): string | undefined {
  const variable = cli.env[CONSOLE_TOKEN_VARIABLE]?.trim();
  return variable === undefined || variable === '' ? undefined : variable;
}

/**
 * The hashed tokens of `--tokens-file` and `WAYMARK_CONSOLE_TOKENS`, or undefined when
 * neither is given; a file that cannot be read or a malformed line is a usage error.
 */
function tokensOf(file: string | undefined, cli: CliContext): ConsoleTokenHash[] | undefined {
  const variable = cli.env[CONSOLE_TOKENS_VARIABLE];
  if (file === undefined && (variable === undefined || variable.trim() === '')) return undefined;
  const tokens = parseConsoleTokens(variable ?? '', CONSOLE_TOKENS_VARIABLE);
  if (file !== undefined) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new CliError(`cannot read --tokens-file ${file}: ${messageOf(error)}`, ExitCode.Usage, {
        cause: error,
      });
    }
    tokens.push(...parseConsoleTokens(text, `--tokens-file ${file}`));
  }
  if (tokens.length === 0) {
    throw new CliError(
      `no token in ${file === undefined ? CONSOLE_TOKENS_VARIABLE : `--tokens-file ${file}`}`,
      ExitCode.Usage,
    );
  }
  return tokens;
}

/**
 * An empty `--host` would make Node listen on every interface while the printed URL reads
 * `http://:4100/`: refused as a usage error, like any malformed option.
 */
function checkHost(host: string): void {
  if (host.trim() === '') {
    throw new CliError(
      '--host must name an address (127.0.0.1, ::1, or 0.0.0.0 to listen on every interface), got an empty string',
      ExitCode.Usage,
    );
  }
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}
