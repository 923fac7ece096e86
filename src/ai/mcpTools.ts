import type { JSONSchema7, Tool, ToolExecutionOptions, ToolSet } from 'ai';
import { parseDuration } from '../ground/Duration';
import { loadOptionalPeer } from '../ground/optionalPeer';
import { currentStepIdempotencyKey } from '../runtime/inlineStep';
import { wrapTools, type DurableToolOptions } from './durableTools';

/** One tool as an MCP server lists it (`tools/list`). */
export interface McpToolDefinition {
  name: string;
  description?: string;
  inputSchema: object;
}

/**
 * What an MCP `tools/call` answers: the content the model reads, the structured result when
 * the tool declares an output schema, and `isError` for a failure the model should see.
 */
export interface McpToolResult {
  content?: unknown[];
  structuredContent?: { [key: string]: unknown };
  isError?: boolean;
  [key: string]: unknown;
}

/**
 * The part of an MCP client {@link mcpTools} uses: the official SDK's `Client`
 * (`@modelcontextprotocol/sdk/client`), connected, has it.
 */
export interface McpClient {
  listTools(params?: {
    cursor?: string;
  }): Promise<{ tools: McpToolDefinition[]; nextCursor?: string }>;
  callTool(
    params: { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> },
    resultSchema?: undefined,
    options?: { signal?: AbortSignal; timeout?: number },
  ): Promise<McpToolResult>;
}

/** Options of {@link mcpTools}: per tool, by the name the server lists it under. */
export type McpToolOptionsByName = Record<string, DurableToolOptions<Record<string, unknown>>>;

/**
 * The `_meta` key under which each call sends its step's idempotency key, so a server that
 * can deduplicate sees the same key when a call is made again after a crash.
 */
export const MCP_IDEMPOTENCY_KEY_META = 'waymark/idempotency-key';

/**
 * Lists the tools of a connected MCP client (the official SDK's `Client`) and returns them as
 * AI SDK tools whose calls are steps, as `durableTools` makes them: step `tool:<name>`,
 * key `tool:<toolCallId>`, with per-tool `atMostOnce`, `needsApproval`, `key`, `retry`,
 * `timeout` and `limiter`. Each call sends its idempotency key in `_meta` under
 * {@link MCP_IDEMPOTENCY_KEY_META}. A tool's result (`isError` included) is recorded as the
 * step's result; a transport or protocol error fails the attempt.
 *
 * The client is not durable: create and connect it in the process that runs the workflow
 * (a resumed run creates it again, which opens a new session), never store it.
 *
 * @example
 * ```ts
 * const client = new Client({ name: 'shop-agent', version: '1.0.0' });
 * await client.connect(new StreamableHTTPClientTransport(new URL('http://localhost:3000/mcp')));
 * const tools = await mcpTools(client, { refund: { atMostOnce: true } });
 * const result = await generateText({ model: durableModel(openai('gpt-5')), tools, prompt });
 * ```
 */
export async function mcpTools(
  client: McpClient,
  options: McpToolOptionsByName = {},
): Promise<ToolSet> {
  const { jsonSchema } = loadOptionalPeer<typeof import('ai')>('mcpTools()', 'ai');
  const tools: Record<string, Tool> = {};
  for (const definition of await listAll(client)) {
    const name = definition.name;
    // The SDK cuts a request at its own timeout (60 s unless told): give it the tool's.
    const timeout = options[name]?.timeout;
    const timeoutMs =
      timeout === undefined ? undefined : parseDuration(timeout, `mcpTools(): ${name}.timeout`);
    const dynamic: Tool = {
      type: 'dynamic',
      description: definition.description,
      inputSchema: jsonSchema(definition.inputSchema as JSONSchema7),
      execute: (input: unknown, call: ToolExecutionOptions) =>
        client.callTool(
          { name, arguments: input as Record<string, unknown>, _meta: idempotencyMeta() },
          undefined,
          { signal: call.abortSignal, timeout: timeoutMs },
        ),
    };
    tools[name] = dynamic;
  }
  return wrapTools('mcpTools()', tools, options as Record<string, DurableToolOptions>);
}

async function listAll(client: McpClient): Promise<McpToolDefinition[]> {
  const all: McpToolDefinition[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? undefined : { cursor });
    all.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return all;
}

/** The key of the step the call runs in; none outside a run, where no step wraps it. */
function idempotencyMeta(): Record<string, unknown> | undefined {
  const key = currentStepIdempotencyKey();
  return key === undefined ? undefined : { [MCP_IDEMPOTENCY_KEY_META]: key };
}
