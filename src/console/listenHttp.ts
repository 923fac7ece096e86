import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateToken } from './bearerToken';
import { consoleToken } from './consoleToken';
import type { ConsoleTokenHash } from './consoleTokens';

/** A server of ours listening: where, and how to stop it (once, however often asked). */
export interface Listening {
  /** `http://<host>:<port>` with an IPv6 host in brackets, no trailing slash. */
  readonly origin: string;
  /** Stops listening and ends open connections. */
  readonly close: () => Promise<void>;
}

/**
 * The admin token a server started with `token`/`tokens` options holds: `token` checked,
 * else a new one when no `tokens` were given either, else none. `caller` names the option
 * in errors (`startConsole()`).
 */
export function adminTokenOf(
  options: { token?: string; tokens?: readonly ConsoleTokenHash[] },
  caller: string,
): string | undefined {
  if (options.token !== undefined) return consoleToken(options.token, `${caller}: token`);
  return options.tokens === undefined ? generateToken() : undefined;
}

/** Listens on `host:port` (0 picks a free port); rejects when the port cannot be had. */
export async function listenHttp(server: Server, port: number, host: string): Promise<Listening> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = (server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  return {
    origin: `http://${host.includes(':') ? `[${host}]` : host}:${address}`,
    close: () => {
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
