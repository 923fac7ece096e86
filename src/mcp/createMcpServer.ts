import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { packageVersion } from '../cli/packageVersion';
import type { WaymarkRuntime } from '../runtime/WaymarkRuntime';
import { registerActionTools } from './actionTools';
import { PROCESS_OWNER, type McpCaller } from './McpCaller';
import { McpContext } from './McpContext';
import { loadMcpSdk } from './mcpSdk';
import { registerReadTools } from './readTools';
import { registerTaskHandlers } from './taskHandlers';

/** Options of {@link createMcpServer}. */
export interface McpServerOptions {
  /**
   * Who makes this server's calls, checked against each call's role: default an admin named
   * `mcp-owner` (whoever started the process, as over stdio).
   */
  caller?: McpCaller;
}

/**
 * An MCP server (the official SDK's `McpServer`, not yet connected) that serves the runtime's
 * runs as MCP tasks — `tasks/get`, `tasks/list`, `tasks/result`, `tasks/cancel`, and
 * `tasks/update` to deliver a signal — and offers the tools `list`, `show`, `signal`,
 * `approve`, `retry`, `cancel`, `fork` and `replay`. It executes no run: a worker does.
 *
 * @example
 * ```ts
 * import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
 * const server = createMcpServer(runtime, { caller: { name: 'desk', role: 'viewer' } });
 * await server.connect(new StdioServerTransport());
 * ```
 */
export function createMcpServer(
  runtime: WaymarkRuntime,
  options: McpServerOptions = {},
): McpServer {
  const sdk = loadMcpSdk('createMcpServer()');
  const server = new sdk.server.McpServer(
    { name: 'waymark', version: packageVersion() },
    {
      capabilities: { tools: {}, tasks: { list: {}, cancel: {} } },
      instructions:
        'Durable workflow runs of waymark, as MCP tasks (task id = run id). A task in ' +
        'input_required waits for a signal or an approval: send it with the approve or signal ' +
        'tool, or tasks/update. Tools: list, show, signal, approve, retry, cancel, fork, replay.',
    },
  );
  const context = new McpContext(sdk, server, options.caller ?? PROCESS_OWNER, runtime);
  registerReadTools(context, runtime);
  registerActionTools(context);
  registerTaskHandlers(context);
  return server;
}
