import type { WaymarkRuntime } from '../runtime/WaymarkRuntime';
import { CliError } from './CliError';
import { messageOf } from './describeFailure';
import { ExitCode } from './ExitCode';

/**
 * Starts a server on `runtime` (the console, the MCP server); when it cannot listen, closes
 * the runtime and fails naming the address it was given.
 */
export async function listenOrClose<T>(
  runtime: WaymarkRuntime,
  at: { host: string; port: number },
  start: () => Promise<T>,
): Promise<T> {
  try {
    return await start();
  } catch (error) {
    await runtime.close({ grace: 0 });
    throw new CliError(
      `cannot listen on ${at.host}:${at.port}: ${messageOf(error)}`,
      ExitCode.Failed,
      {
        cause: error,
      },
    );
  }
}
