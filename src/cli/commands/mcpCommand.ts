import type { Command } from 'commander';
import { ConsoleCredentials } from '../../console/ConsoleCredentials';
import { createMcpServer } from '../../mcp/createMcpServer';
import { PROCESS_OWNER, type McpCaller } from '../../mcp/McpCaller';
import { loadMcpSdk } from '../../mcp/mcpSdk';
import { startMcpServer } from '../../mcp/startMcpServer';
import { databaseUrlOf, type CliContext } from '../CliContext';
import { CliError } from '../CliError';
import { ExitCode } from '../ExitCode';
import { listenOrClose } from '../listenOrClose';
import { loadModule } from '../loadModule';
import { openRuntime } from '../openRuntime';
import { integerIn } from '../optionParsers';
import { stopSignal } from '../stopSignal';
import {
  checkHost,
  CONSOLE_TOKEN_VARIABLE,
  CONSOLE_TOKENS_VARIABLE,
  isLoopback,
  shownToken,
  tokenOf,
  tokensOf,
} from '../tokenOptions';

/** The environment variable naming, over stdio, the token whose role the session has. */
export const MCP_TOKEN_VARIABLE = 'WAYMARK_MCP_TOKEN';

interface McpCommandOptions {
  http?: number;
  host: string;
  token?: string;
  tokensFile?: string;
  module: string[];
}

/**
 * `waymark mcp`: an MCP server for the database's runs (as MCP tasks) with operator tools,
 * over stdio (for a client that starts it, as Claude Desktop does) or, with `--http <port>`,
 * Streamable HTTP at `/mcp`. Over stdio the process owner is trusted as an admin, unless
 * `WAYMARK_MCP_TOKEN` holds a console token, whose role the session then has. Over HTTP every
 * request needs a console token (`--token`, `WAYMARK_CONSOLE_TOKEN`, `--tokens-file`,
 * `WAYMARK_CONSOLE_TOKENS`, or a new one printed at start); one from the environment is
 * never printed.
 *
 * @example
 * ```sh
 * waymark mcp --db sqlite:./waymark.db
 * waymark mcp --db "$DB" --http 4200 --tokens-file ./tokens
 * ```
 */
export function registerMcpCommand(program: Command, cli: CliContext): void {
  program
    .command('mcp')
    .description('serve runs as MCP tasks, with operator tools, over stdio or Streamable HTTP')
    .option(
      '--http <port>',
      'serve Streamable HTTP on this port (0: any free port)',
      integerIn(0, 65_535),
    )
    .option('--host <address>', 'with --http: address to listen on', '127.0.0.1')
    .option(
      '--token <token>',
      `with --http: an admin token (prefer $${CONSOLE_TOKEN_VARIABLE}; default: a new one)`,
    )
    .option(
      '--tokens-file <path>',
      `tokens with a role, one per line as role:sha256hex[:name] (also $${CONSOLE_TOKENS_VARIABLE})`,
    )
    .option(
      '--module <path>',
      'a module declaring the workflows, for the replay tool (repeat it)',
      (path: string, previous: string[]) => [...previous, path],
      [],
    )
    .action(async (options: McpCommandOptions, command: Command) => {
      const url = databaseUrlOf(command, cli.env);
      if (options.http === undefined) await serveStdio(url, options, cli);
      else await serveHttp(url, options.http, options, cli);
    });
}

async function serveStdio(url: string, options: McpCommandOptions, cli: CliContext): Promise<void> {
  const caller = stdioCaller(options, cli);
  for (const module of options.module) loadModule(module);
  const sdk = loadMcpSdk('waymark mcp');
  const runtime = await openRuntime(url, cli.output);
  const server = createMcpServer(runtime, { caller });
  const transport = new sdk.stdio.StdioServerTransport();
  // Stdout carries the protocol: nothing else may be printed there.
  const ended = new Promise<string>((resolve) => {
    process.stdin.once('end', () => resolve('stdin closed'));
    transport.onclose = () => resolve('transport closed');
    void stopSignal().then(resolve);
  });
  await server.connect(transport);
  const why = await ended;
  cli.output.warn(`waymark mcp: ${why}, stopping`);
  await server.close();
  await runtime.close({ grace: 0 });
}

/**
 * The caller of a stdio session: the owner of the process (an admin), or the holder of the
 * token in `WAYMARK_MCP_TOKEN`, looked up among the console's tokens.
 */
function stdioCaller(options: McpCommandOptions, cli: CliContext): McpCaller {
  if (options.token !== undefined) {
    throw new CliError(
      `--token is for --http; over stdio set $${MCP_TOKEN_VARIABLE} to the session's token`,
      ExitCode.Usage,
    );
  }
  const presented = cli.env[MCP_TOKEN_VARIABLE]?.trim();
  if (presented === undefined || presented === '') return PROCESS_OWNER;
  const token = tokenOf(undefined, cli);
  const tokens = tokensOf(options.tokensFile, cli);
  if (token === undefined && tokens === undefined) {
    throw new CliError(
      `$${MCP_TOKEN_VARIABLE} is set, but no token is known to check it against: give ` +
        `--tokens-file, $${CONSOLE_TOKENS_VARIABLE} or $${CONSOLE_TOKEN_VARIABLE}`,
      ExitCode.Usage,
    );
  }
  const caller = ConsoleCredentials.of({ token, tokens }, 'waymark mcp').identifyToken(presented);
  if (caller === undefined) {
    throw new CliError(`$${MCP_TOKEN_VARIABLE} is none of the tokens given`, ExitCode.Usage);
  }
  return caller;
}

async function serveHttp(
  url: string,
  port: number,
  options: McpCommandOptions,
  cli: CliContext,
): Promise<void> {
  checkHost(options.host);
  const token = tokenOf(options.token, cli);
  const tokens = tokensOf(options.tokensFile, cli);
  for (const module of options.module) loadModule(module);
  const runtime = await openRuntime(url, cli.output);
  const stopped = stopSignal();
  const served = await listenOrClose(runtime, { port, host: options.host }, () =>
    startMcpServer(runtime, { port, host: options.host, token, tokens }),
  );
  if (!isLoopback(options.host)) {
    cli.output.warn(
      `listening on ${options.host}: anyone who reaches this port and has a token can act on runs`,
    );
  }
  const shown = shownToken(options.token, token, served.token);
  cli.output.line(`waymark mcp: ${served.url} (Authorization: Bearer ${shown})`);
  const signal = await stopped;
  cli.output.line(`${signal}: stopping the MCP server`);
  await served.close();
  await runtime.close({ grace: 0 });
  cli.output.line('MCP server stopped');
}
