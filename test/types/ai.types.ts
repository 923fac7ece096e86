/**
 * Compile-time contract of `waymark/ai`: wrapped tools keep their input and output types,
 * per-tool options are typed by tool name and input, and a tool whose output cannot be
 * stored fails to compile, as a step's result does. Compiled by `npm run typecheck`.
 */
import { tool, type InferToolInput, type InferToolOutput } from 'ai';
import { durableTools } from 'waymark/ai';
import { z } from 'zod';

const lookupOrder = tool({
  inputSchema: z.object({ orderId: z.string() }),
  execute: async ({ orderId }) => ({ orderId, total: 40, shippedAt: new Date() }),
});
const refund = tool({
  inputSchema: z.object({ orderId: z.string(), amount: z.number() }),
  execute: async ({ amount }) => ({ refunded: amount }),
});

export const tools = durableTools(
  { lookupOrder, refund },
  { refund: { atMostOnce: true, needsApproval: (input) => input.amount > 100 } },
);
export const input: InferToolInput<typeof tools.refund> = { orderId: '1', amount: 5 };
const output: InferToolOutput<typeof tools.lookupOrder> = {
  orderId: '1',
  total: 1,
  shippedAt: new Date(),
};
void input;
void output;

// @ts-expect-error the input of refund has no field "cents"
durableTools({ refund }, { refund: { needsApproval: (i) => i.cents > 100 } });

// @ts-expect-error options name no such tool
durableTools({ refund }, { refnd: { atMostOnce: true } });

const client = tool({
  inputSchema: z.object({ q: z.string() }),
  execute: async () => ({ send: (text: string) => text }),
});
// @ts-expect-error a tool whose output holds a function cannot be stored
durableTools({ client });
