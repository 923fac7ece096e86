import { createMCPClient } from '@ai-sdk/mcp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { LanguageModelV3CallOptions, LanguageModelV3GenerateResult } from '@ai-sdk/provider';
import { generateText, stepCountIs, type ToolSet } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { Workflow } from 'waymark';
import { durableMcpTools, durableModel, mcpTools } from 'waymark/ai';

/**
 * Where the shop's MCP server is: a Streamable HTTP URL (read with the official SDK's client,
 * or with the AI SDK's when `aiSdk`), or `stdio` to start it as a child.
 */
export type ShopServer = { url: string; aiSdk?: boolean } | 'stdio';

export interface ShopAnswer {
  text: string;
  toolResults: unknown[];
  /** The name of each error a tool call ended with, as the model was told it. */
  toolErrors: string[];
}

const STDIO_SHOP = 'test/ai/fixtures/mcpStdioShop.ts';

/**
 * A support agent whose tools come from the shop MCP server: a scripted model looks order 1
 * up, refunds it, then answers. The MCP client is made in the run, so a resumed run connects
 * again.
 */
export class McpShopWorkflow {
  @Workflow({ name: 'mcp-shop', id: (ticket: string) => `mcp-${ticket}` })
  async answer(ticket: string, server: ShopServer, refundOnce: boolean): Promise<ShopAnswer> {
    if (server !== 'stdio' && server.aiSdk) {
      const client = await createMCPClient({ transport: { type: 'http', url: server.url } });
      try {
        const tools = await durableMcpTools(client, { refund: { atMostOnce: refundOnce } });
        return await talk(ticket, tools);
      } finally {
        await client.close();
      }
    }
    const client = new Client({ name: 'shop-agent', version: '1.0.0' });
    await client.connect(
      server === 'stdio'
        ? new StdioClientTransport({
            command: process.execPath,
            args: ['-r', '@swc-node/register', STDIO_SHOP],
            stderr: 'pipe',
          })
        : new StreamableHTTPClientTransport(new URL(server.url)),
    );
    try {
      return await talk(ticket, await mcpTools(client, { refund: { atMostOnce: refundOnce } }));
    } finally {
      await client.close();
    }
  }
}

async function talk(ticket: string, tools: ToolSet): Promise<ShopAnswer> {
  const result = await generateText({
    model: durableModel(shopModel()),
    tools,
    stopWhen: stepCountIs(5),
    prompt: `Ticket ${ticket}: refund order 1.`,
  });
  return {
    text: result.text,
    toolResults: result.steps.flatMap((s) => s.toolResults.map((r) => r.output)),
    toolErrors: result.steps.flatMap((s) =>
      s.content.flatMap((part) => (part.type === 'tool-error' ? [errorName(part.error)] : [])),
    ),
  };
}

/** Turn 0 looks order 1 up, turn 1 refunds it, turn 2 answers. */
function shopModel(): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    modelId: 'shop-model',
    doGenerate: async (options: LanguageModelV3CallOptions) => {
      const turn = options.prompt.filter((m) => m.role === 'tool').length;
      if (turn === 0) return toolCall('call_lookup_1', 'lookupOrder', { orderId: '1' });
      if (turn === 1) return toolCall('call_refund_1', 'refund', { orderId: '1', amount: 40 });
      return {
        content: [{ type: 'text', text: 'Order 1 was refunded.' }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: USAGE,
        warnings: [],
      };
    },
  });
}

function toolCall(
  toolCallId: string,
  toolName: string,
  input: object,
): LanguageModelV3GenerateResult {
  return {
    content: [{ type: 'tool-call', toolCallId, toolName, input: JSON.stringify(input) }],
    finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
    usage: USAGE,
    warnings: [],
  };
}

const USAGE = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};

function errorName(error: unknown): string {
  return error instanceof Error ? error.name : String(error);
}
