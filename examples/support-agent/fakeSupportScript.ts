import type { FakeReply, FakeRequest } from '../../test/support/fakeOpenAi';

/**
 * What the built-in fake model answers, turn by turn: look up the order the customer names,
 * then refund it (its whole total), then answer. Parsed from the conversation, so it also
 * refunds an expensive order when asked ("order 2" is $450: it waits for approval).
 */
export function fakeSupportScript(request: FakeRequest): FakeReply {
  const user = request.messages.find((m) => m.role === 'user');
  const text =
    typeof user?.content === 'string' ? user.content : JSON.stringify(user?.content ?? '');
  const orderId = /order (\d+)/.exec(text)?.[1] ?? '1';
  const lastTool = [...request.messages].reverse().find((m) => m.role === 'tool');
  if (request.turn === 0) {
    return {
      kind: 'tools',
      calls: [{ id: `call_lookup_${orderId}`, name: 'lookupOrder', arguments: { orderId } }],
    };
  }
  if (request.turn === 1) {
    const total = Number(/total\W+(\d+)/.exec(JSON.stringify(lastTool?.content ?? ''))?.[1] ?? 0);
    return {
      kind: 'tools',
      calls: [
        { id: `call_refund_${orderId}`, name: 'refund', arguments: { orderId, amount: total } },
      ],
    };
  }
  const outcome = JSON.stringify(lastTool?.content ?? '');
  const refunded = /refundId/.test(outcome);
  return {
    kind: 'text',
    text: refunded
      ? `I am sorry about order ${orderId}. I have refunded it; the refund is on its way.`
      : `I could not refund order ${orderId}: ${outcome}`,
    chunks: 12,
    chunkDelayMs: 20,
  };
}
