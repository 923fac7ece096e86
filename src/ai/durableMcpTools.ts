import type { ToolSet } from 'ai';
import { wrapTools, type DurableToolOptions, type DurableToolOptionsByName } from './durableTools';

/** The part of the AI SDK's MCP client (`@ai-sdk/mcp`) {@link durableMcpTools} uses. */
export interface AiSdkMcpClient<TOOLS extends ToolSet> {
  tools(): Promise<TOOLS>;
}

/**
 * The tools of the AI SDK's MCP client (`createMCPClient()` of `@ai-sdk/mcp`), each call a step
 * as `durableTools` makes it: step `tool:<name>`, key `tool:<toolCallId>`, per-tool
 * `atMostOnce`, `needsApproval`, `key`, `retry`, `timeout` and `limiter`. The client sends no
 * `_meta`, so the server does not see the idempotency key; `mcpTools()` over the official SDK's
 * `Client` sends it. For typed tools (`client.tools({ schemas })`), pass them to `durableTools`.
 *
 * The client is not durable: create it in the process that runs the workflow (a resumed run
 * creates it again, which opens a new session), never store it.
 *
 * @example
 * ```ts
 * const client = await createMCPClient({ transport: { type: 'http', url: 'http://localhost:3000/mcp' } });
 * const tools = await durableMcpTools(client, { refund: { atMostOnce: true } });
 * ```
 */
export async function durableMcpTools<TOOLS extends ToolSet>(
  client: AiSdkMcpClient<TOOLS>,
  options: DurableToolOptionsByName<TOOLS> = {},
): Promise<TOOLS> {
  const tools = await client.tools();
  return wrapTools(
    'durableMcpTools()',
    tools,
    options as Record<string, DurableToolOptions | undefined>,
  ) as TOOLS;
}
