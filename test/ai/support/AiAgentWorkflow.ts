import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateText, stepCountIs, streamText, tool } from 'ai';
import { inject, injectable } from 'tsyringe';
import { Step, Workflow, WorkflowContext } from 'waymark';
import { durableModel, durableTools } from 'waymark/ai';
import { z } from 'zod';

/** Where the agent's model lives and where its tools' effects are counted. */
export const AI_AGENT_ENV = Symbol('AI_AGENT_ENV');
export interface AiAgentEnv {
  readonly baseURL: string;
  /** Called for every tool execution that really runs (not replayed). */
  readonly effect: (what: string) => Promise<void> | void;
}

export interface AgentAnswer {
  text: string;
  steps: number;
  toolCalls: string[];
}

/** A support agent: lookups and a refund (approval over $100), generateText or streamText. */
@injectable()
export class AiAgentWorkflow {
  constructor(
    @inject(AI_AGENT_ENV) private readonly env: AiAgentEnv,
    private readonly ctx: WorkflowContext,
  ) {}

  @Workflow({ name: 'ai-agent', id: (ticket: string) => `ticket-${ticket}` })
  async answer(ticket: string, mode: 'generate' | 'stream' = 'generate'): Promise<AgentAnswer> {
    const provider = createOpenAICompatible({
      name: 'fake',
      baseURL: this.env.baseURL,
      apiKey: 'test',
      includeUsage: true,
    });
    const model = durableModel(provider.chatModel('fake-gpt'));
    const settings = {
      model,
      tools: this.tools(),
      stopWhen: stepCountIs(12),
      maxRetries: 0,
      prompt: `Ticket ${ticket}: where is my order, and refund order 1.`,
    };
    if (mode === 'stream') {
      const result = streamText(settings);
      const text = await result.text;
      const steps = await result.steps;
      return {
        text,
        steps: steps.length,
        toolCalls: steps.flatMap((s) => s.toolCalls.map((c) => c.toolCallId)),
      };
    }
    const result = await generateText(settings);
    return {
      text: result.text,
      steps: result.steps.length,
      toolCalls: result.steps.flatMap((s) => s.toolCalls.map((c) => c.toolCallId)),
    };
  }

  @Step()
  async notify(ticket: string): Promise<string> {
    return `notified ${ticket} in ${this.ctx.runId}`;
  }

  private tools() {
    const env = this.env;
    const ctx = this.ctx;
    return durableTools(
      {
        lookupOrder: tool({
          description: 'Looks an order up',
          inputSchema: z.object({ orderId: z.string() }),
          execute: async ({ orderId }) => {
            await env.effect(`lookup ${orderId} ${ctx.idempotencyKey}`);
            return { orderId, status: 'shipped', total: 40 };
          },
        }),
        refund: tool({
          description: 'Refunds an order',
          inputSchema: z.object({ orderId: z.string(), amount: z.number() }),
          execute: async ({ orderId, amount }) => {
            await env.effect(`refund ${orderId} ${amount} ${ctx.idempotencyKey}`);
            return { refundId: `R-${orderId}`, amount };
          },
        }),
      },
      { refund: { atMostOnce: true, needsApproval: ({ amount }) => amount > 100 } },
    );
  }
}
