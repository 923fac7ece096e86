import { readFileSync } from 'node:fs';
import { consoleToken } from '../console/consoleToken';
import { parseConsoleTokens, type ConsoleTokenHash } from '../console/consoleTokens';
import type { CliContext } from './CliContext';
import { CliError } from './CliError';
import { messageOf } from './describeFailure';
import { ExitCode } from './ExitCode';

/** The environment variable holding the console token when `--token` is not given. */
export const CONSOLE_TOKEN_VARIABLE = 'WAYMARK_CONSOLE_TOKEN';

/** The environment variable holding hashed tokens with roles, as a tokens file does. */
export const CONSOLE_TOKENS_VARIABLE = 'WAYMARK_CONSOLE_TOKENS';

/**
 * `--token`, else `WAYMARK_CONSOLE_TOKEN`, else none (the console generates one), checked
 * before anything is opened. `--token` is visible to every user of the machine in `ps`.
 */
export function tokenOf(option: string | undefined, cli: CliContext): string | undefined {
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
export function tokensOf(
  file: string | undefined,
  cli: CliContext,
): ConsoleTokenHash[] | undefined {
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
 * The token a server prints in its address: the one it generated or was given by `--token`,
 * never one from the environment (its variable's name instead), and with only tokens with
 * roles a placeholder (each holder pastes their own).
 */
export function shownToken(
  option: string | undefined,
  token: string | undefined,
  served: string | undefined,
): string {
  const fromEnv = option === undefined && token !== undefined;
  return fromEnv ? `<${CONSOLE_TOKEN_VARIABLE}>` : (served ?? '<your-token>');
}

/**
 * An empty `--host` would make Node listen on every interface while the printed URL reads
 * `http://:4100/`: refused as a usage error, like any malformed option.
 */
export function checkHost(host: string): void {
  if (host.trim() === '') {
    throw new CliError(
      '--host must name an address (127.0.0.1, ::1, or 0.0.0.0 to listen on every interface), got an empty string',
      ExitCode.Usage,
    );
  }
}

/** Whether `host` reaches only this machine. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}
