import { Agent, OpenAIProvider, Runner, setTracingDisabled, tool } from '@openai/agents';
import { inject, injectable } from 'tsyringe';
import { Workflow, WorkflowContext } from 'waymark';
import { durableAgentTools, durableModelProvider } from 'waymark/ai';
import { z } from 'zod';
import { AI_AGENT_ENV, type AiAgentEnv } from './AiAgentWorkflow';

// Traces would go to OpenAI's servers: no test calls the internet.
setTracingDisabled(true);

/**
 * The support agent of AiAgentWorkflow, written with the OpenAI Agents SDK: refunds over
 * $100 wait for approval.
 */
@injectable()
export class AgentsSdkWorkflow {
  constructor(
    @inject(AI_AGENT_ENV) private readonly env: AiAgentEnv,
    private readonly ctx: WorkflowContext,
  ) {}

  @Workflow({ name: 'agents-sdk-agent', id: (ticket: string) => `agents-${ticket}` })
  async answer(ticket: string): Promise<string> {
    const provider = new OpenAIProvider({
      baseURL: this.env.baseURL,
      apiKey: 'test',
      useResponses: false,
    });
    const runner = new Runner({
      modelProvider: durableModelProvider(provider),
      tracingDisabled: true,
    });
    const agent = new Agent({
      name: 'support',
      instructions: 'Look orders up, then refund order 1.',
      model: 'fake-gpt',
      tools: durableAgentTools([
        tool({
          name: 'lookupOrder',
          description: 'Looks an order up',
          parameters: z.object({ orderId: z.string() }),
          execute: async ({ orderId }) => {
            await this.env.effect(`lookup ${orderId} ${this.ctx.idempotencyKey}`);
            return { orderId, status: 'shipped' };
          },
        }),
        tool({
          name: 'refund',
          description: 'Refunds an order',
          parameters: z.object({ orderId: z.string(), amount: z.number() }),
          // The SDK's own approval option: inside a run, a wait for approve:<callId>.
          needsApproval: async (_context, { amount }) => Promise.resolve(amount > 100),
          execute: async ({ orderId, amount }) => {
            await this.env.effect(`refund ${orderId} ${amount} ${this.ctx.idempotencyKey}`);
            return { refundId: `R-${orderId}` };
          },
        }),
      ]),
    });
    const result = await runner.run(agent, `Ticket ${ticket}`, { maxTurns: 12 });
    return String(result.finalOutput);
  }
}
