import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { WaymarkRuntime } from '../runtime/WaymarkRuntime';
import { generateToken } from './bearerToken';
import { consoleToken } from './consoleToken';
import { createConsoleHandler } from './createConsoleHandler';

/** Options of {@link startConsole}. */
export interface StartConsoleOptions {
  /** Default 4100; 0 picks a free port. */
  port?: number;
  /** Default `127.0.0.1`: only this machine can reach the console. */
  host?: string;
  /**
   * The token API calls need; default a new one (32 random bytes, hex). Trimmed; at least 16
   * printable ASCII characters without whitespace, else a `ConfigurationError`.
   */
  token?: string;
  /** Largest request body accepted; default 64 KiB. */
  maxBodyBytes?: number;
}

/** A console being served; `close()` stops it (the runtime stays open). */
export interface RunningConsole {
  /** Where the page is, e.g. `http://127.0.0.1:4100/`. */
  readonly url: string;
  /** The token (trimmed); open `${url}#token=${token}` in a browser. */
  readonly token: string;
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
  const token =
    options.token === undefined
      ? generateToken()
      : consoleToken(options.token, 'startConsole(): token');
  const host = options.host ?? '127.0.0.1';
  const handler = createConsoleHandler(runtime, { token, maxBodyBytes: options.maxBodyBytes });
  const server = createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 4100, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}/`,
    token,
    close: () => {
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
