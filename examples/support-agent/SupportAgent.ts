import { streamText, stepCountIs, tool, type LanguageModel } from 'ai';
import { inject, injectable } from 'tsyringe';
import { isRunSuspended, Workflow, WorkflowContext } from 'waymark';
import { durableModel, durableTools } from 'waymark/ai';
import { z } from 'zod';
import { Payments } from './Payments';

/** The language model the agent talks to (the fake server's, or a real provider's). */
export const SUPPORT_MODEL = Symbol('SUPPORT_MODEL');

const ORDERS: Record<string, { item: string; total: number; status: string }> = {
  '1': { item: 'kettle', total: 40, status: 'delivered, broken' },
  '2': { item: 'espresso machine', total: 450, status: 'delivered' },
  '3': { item: 'mug', total: 12, status: 'in transit' },
  '4': { item: 'grinder', total: 90, status: 'delivered' },
};

/**
 * A customer-support agent: the model looks orders up and refunds them; a refund over $100
 * waits for a human (signal `approve:<toolCallId>`); the answer is streamed. Every model
 * call and tool call is a step, so a crash anywhere resumes without asking the model again
 * for what it already answered, and without refunding twice.
 */
@injectable()
export class SupportAgent {
  constructor(
    @inject(SUPPORT_MODEL) private readonly model: Exclude<LanguageModel, string>,
    private readonly payments: Payments,
    private readonly ctx: WorkflowContext,
  ) {}

  @Workflow({ name: 'support-ticket', id: (ticket: string) => `ticket-${ticket}` })
  async handle(_ticket: string, message: string): Promise<string> {
    const result = streamText({
      model: durableModel(this.model as Parameters<typeof durableModel>[0]),
      system: 'You are a support agent. Look orders up before refunding them.',
      prompt: message,
      tools: this.tools(),
      stopWhen: stepCountIs(10),
      maxRetries: 0, // waymark retries model calls, with attempts that survive a crash
      // A run released to wait for an approval unwinds through the stream: not an error.
      onError: ({ error }) => {
        if (!isRunSuspended(error)) console.error(error);
      },
    });
    let answer = '';
    for await (const delta of result.textStream) {
      answer += delta;
      process.stdout.write(delta);
    }
    process.stdout.write('\n');
    return answer;
  }

  private tools() {
    return durableTools(
      {
        lookupOrder: tool({
          description: 'Look an order up by id',
          inputSchema: z.object({ orderId: z.string() }),
          execute: async ({ orderId }) => ORDERS[orderId] ?? { error: `no order ${orderId}` },
        }),
        refund: tool({
          description: 'Refund an order, in dollars',
          inputSchema: z.object({ orderId: z.string(), amount: z.number() }),
          execute: async ({ orderId, amount }) =>
            this.payments.refund(orderId, amount, this.ctx.idempotencyKey),
        }),
      },
      {
        refund: {
          // The @Idempotent of a tool: one key per order, whatever the model's call ids.
          key: ({ orderId }) => `refund-${orderId}`,
          needsApproval: ({ amount }) => amount > 100,
          retry: { maxAttempts: 3 },
        },
      },
    );
  }
}
