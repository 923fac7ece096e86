import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { WaymarkRuntime } from '../runtime/WaymarkRuntime';
import { jsonResult } from './jsonResult';
import type { McpCaller } from './McpCaller';
import { requireMcpRole } from './mcpFailure';
import { MCP_ROLES, type McpCallName } from './mcpRoles';
import type { McpSdk } from './mcpSdk';
import { RunActions } from './RunActions';
import { RunTasks } from './RunTasks';

/** What one MCP server's handlers share: the SDK, the server, its caller and the runs. */
export class McpContext {
  readonly tasks: RunTasks;
  readonly actions: RunActions;

  constructor(
    readonly sdk: McpSdk,
    readonly server: McpServer,
    readonly caller: McpCaller,
    runtime: WaymarkRuntime,
  ) {
    this.tasks = new RunTasks(runtime);
    this.actions = new RunActions(runtime, caller);
  }

  /** Refuses `call` unless the caller's role allows it ({@link MCP_ROLES}). */
  allow(call: McpCallName): void {
    requireMcpRole(this.sdk, this.caller, MCP_ROLES[call], call);
  }

  /**
   * Registers the tool `name`: arguments checked against `schema` (unknown ones refused), the
   * caller's role against {@link MCP_ROLES}, then `run`'s answer sent as JSON. A failure is
   * the tool's answer with `isError` and the message naming what was wrong.
   */
  tool<A>(
    name: McpCallName,
    description: string,
    schema: import('zod/v4').ZodType<A>,
    run: (args: A) => Promise<Record<string, unknown>>,
  ): void {
    const handler = async (args: A): Promise<CallToolResult> => {
      this.allow(name);
      return jsonResult(await run(args));
    };
    this.server.registerTool(name, { description, inputSchema: schema }, handler);
  }
}
