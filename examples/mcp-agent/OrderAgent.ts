import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { generateText, stepCountIs, type LanguageModel } from 'ai';
import { inject, injectable } from 'tsyringe';
import { Workflow } from 'waymark';
import { durableModel, mcpTools } from 'waymark/ai';

/** The language model the agent talks to, and the MCP server its tools come from. */
export const ORDER_AGENT_ENV = Symbol('ORDER_AGENT_ENV');
export interface OrderAgentEnv {
  model: Exclude<LanguageModel, string>;
  mcpUrl: string;
}

/**
 * An agent whose tools are an MCP server's: each model call and each MCP tool call is a step.
 * The MCP client is made inside the run, never stored: a resumed run connects again.
 */
@injectable()
export class OrderAgent {
  constructor(@inject(ORDER_AGENT_ENV) private readonly env: OrderAgentEnv) {}

  @Workflow({ name: 'order-question', id: (ticket: string) => `order-${ticket}` })
  async answer(_ticket: string, question: string): Promise<string> {
    const client = new Client({ name: 'order-agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(this.env.mcpUrl)));
    try {
      const result = await generateText({
        model: durableModel(this.env.model as Parameters<typeof durableModel>[0]),
        tools: await mcpTools(client),
        stopWhen: stepCountIs(5),
        maxRetries: 0, // waymark retries model calls, with attempts that survive a crash
        prompt: question,
      });
      return result.text;
    } finally {
      await client.close();
    }
  }
}
