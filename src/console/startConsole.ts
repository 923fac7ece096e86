import { createServer } from 'node:http';
import type { WaymarkRuntime } from '../runtime/WaymarkRuntime';
import { createConsoleHandler } from './createConsoleHandler';
import type { ConsoleTokenHash } from './consoleTokens';
import { adminTokenOf, listenHttp } from './listenHttp';

/** Options of {@link startConsole}. */
export interface StartConsoleOptions {
  /** Default 4100; 0 picks a free port. */
  port?: number;
  /** Default `127.0.0.1`: only this machine can reach the console. */
  host?: string;
  /**
   * A token that may do everything (`admin`); default a new one (32 random bytes, hex) when
   * `tokens` is not given either. Trimmed; at least 16 printable ASCII characters without
   * whitespace, else a `ConfigurationError`.
   */
  token?: string;
  /** Tokens with a role and a name, by their SHA-256 hash (see `createConsoleHandler`). */
  tokens?: readonly ConsoleTokenHash[];
  /** Largest request body accepted; default 64 KiB. */
  maxBodyBytes?: number;
  /** Sites whose pages may read streams with a stream token (see `createConsoleHandler`). */
  streamOrigins?: readonly string[];
}

/** A console being served; `close()` stops it (the runtime stays open). */
export interface RunningConsole {
  /** Where the page is, e.g. `http://127.0.0.1:4100/`. */
  readonly url: string;
  /**
   * The `token` (trimmed, or the one generated); open `${url}#token=${token}` in a browser.
   * Undefined when only `tokens` were given.
   */
  readonly token: string | undefined;
  /** Stops listening and ends open connections. */
  close(): Promise<void>;
}

/**
 * Serves the web console for `runtime` on its own HTTP server.
 *
 * @example
 * ```ts
 * const console = await startConsole(runtime, { port: 4100 });
 * process.stdout.write(`open ${console.url}#token=${console.token}\n`);
 * // later
 * await console.close();
 * ```
 */
export async function startConsole(
  runtime: WaymarkRuntime,
  options: StartConsoleOptions = {},
): Promise<RunningConsole> {
  const token = adminTokenOf(options, 'startConsole()');
  const host = options.host ?? '127.0.0.1';
  const handler = createConsoleHandler(runtime, {
    token,
    tokens: options.tokens,
    maxBodyBytes: options.maxBodyBytes,
    streamOrigins: options.streamOrigins,
  });
  const server = createServer((req, res) => handler(req, res));
  const listening = await listenHttp(server, options.port ?? 4100, host);
  return { url: `${listening.origin}/`, token, close: listening.close };
}
