import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { ConsoleCredentials } from '../console/ConsoleCredentials';
import type { ConsoleTokenHash } from '../console/consoleTokens';
import { adminTokenOf, listenHttp } from '../console/listenHttp';
import type { WaymarkRuntime } from '../runtime/WaymarkRuntime';
import { createMcpServer } from './createMcpServer';
import { loadMcpSdk, type McpSdk } from './mcpSdk';

/** The path the MCP endpoint is served at. */
export const MCP_PATH = '/mcp';

/** Options of {@link startMcpServer}. */
export interface StartMcpServerOptions {
  /** Default 4200; 0 picks a free port. */
  port?: number;
  /** Default `127.0.0.1`: only this machine. */
  host?: string;
  /** An admin token (as the console's `token`); a new one when neither this nor `tokens` is given. */
  token?: string;
  /** Hashed tokens with their roles, as the console takes them. */
  tokens?: readonly ConsoleTokenHash[];
}

/** A listening MCP server. */
export interface RunningMcpServer {
  /** The endpoint: `http://127.0.0.1:4200/mcp`. */
  readonly url: string;
  /** The admin token, when one was given or generated. */
  readonly token: string | undefined;
  /** Stops listening and drops open connections. */
  close(): Promise<void>;
}

/**
 * Serves {@link createMcpServer} over MCP's Streamable HTTP transport at `/mcp`, stateless
 * (a server per request, no session: a client polls `tasks/get`). Every request needs
 * `Authorization: Bearer <token>` with a console token; its role decides what it may call.
 *
 * @example
 * ```ts
 * const served = await startMcpServer(runtime, { port: 0, tokens });
 * console.log(served.url); // http://127.0.0.1:41234/mcp
 * ```
 */
export async function startMcpServer(
  runtime: WaymarkRuntime,
  options: StartMcpServerOptions = {},
): Promise<RunningMcpServer> {
  const sdk = loadMcpSdk('startMcpServer()');
  const token = adminTokenOf(options, 'startMcpServer()');
  const credentials = ConsoleCredentials.of({ token, tokens: options.tokens }, 'startMcpServer()');
  const host = options.host ?? '127.0.0.1';
  const server = createServer((req, res) => {
    serve(sdk, runtime, credentials, req, res).catch((error: unknown) => {
      if (!res.headersSent) refuse(res, 500, error instanceof Error ? error.message : 'failed');
      else res.destroy();
    });
  });
  const listening = await listenHttp(server, options.port ?? 4200, host);
  return { url: `${listening.origin}${MCP_PATH}`, token, close: listening.close };
}

async function serve(
  sdk: McpSdk,
  runtime: WaymarkRuntime,
  credentials: ConsoleCredentials,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const path = new URL(req.url ?? '/', 'http://localhost').pathname;
  if (path !== MCP_PATH) return refuse(res, 404, `no MCP endpoint at ${path}; it is ${MCP_PATH}`);
  const caller = credentials.identify(req);
  if (caller === undefined) {
    res.setHeader('www-authenticate', 'Bearer');
    return refuse(res, 401, 'a console token is required: Authorization: Bearer <token>');
  }
  if (req.method !== 'POST') {
    res.setHeader('allow', 'POST');
    return refuse(
      res,
      405,
      `${String(req.method)} ${MCP_PATH}: this server is stateless, POST only`,
    );
  }
  const server = createMcpServer(runtime, { caller });
  const transport = new sdk.http.StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res);
}

/** A JSON-RPC error answer without an id, as the SDK's transport writes one. */
function refuse(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}
