import type { FakeReply, FakeRequest, FakeScript } from './replies';

/**
 * The script of a support agent's conversation: turn 0 looks up order 1, turns 1 to
 * `lookups - 1` look up the next orders, then a refund of `refundAmount` for order 1, then
 * a final answer. Each turn is decided by how many tool results the request carries, so a
 * resumed run that replays earlier turns from the store asks for the next turn only.
 */
export function supportAgentScript(
  options: { lookups?: number; refundAmount?: number; answer?: string } = {},
): FakeScript {
  const lookups = options.lookups ?? 3;
  const refundAmount = options.refundAmount ?? 40;
  const answer = options.answer ?? 'Your order 1 was refunded. Anything else?';
  return (request: FakeRequest): FakeReply => {
    const turn = request.turn;
    if (turn < lookups) {
      return {
        kind: 'tools',
        calls: [
          {
            id: `call_lookup_${turn + 1}`,
            name: 'lookupOrder',
            arguments: { orderId: `${turn + 1}` },
          },
        ],
      };
    }
    if (turn === lookups) {
      return {
        kind: 'tools',
        calls: [
          {
            id: 'call_refund_1',
            name: 'refund',
            arguments: { orderId: '1', amount: refundAmount },
          },
        ],
      };
    }
    return { kind: 'text', text: answer, chunks: 6 };
  };
}
