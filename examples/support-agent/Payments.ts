import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { injectable } from 'tsyringe';

/** Where the fake payment provider keeps its refunds (one JSON line each). */
function refundsFile(): string {
  return process.env.SUPPORT_AGENT_REFUNDS ?? 'support-agent-refunds.jsonl';
}

/**
 * A payment provider that deduplicates by idempotency key, as real ones (Stripe, Adyen) do:
 * a second refund with a key it has seen returns the first one's receipt.
 */
@injectable()
export class Payments {
  async refund(
    orderId: string,
    amount: number,
    idempotencyKey: string,
  ): Promise<{ refundId: string; amount: number }> {
    const seen = this.refunds().find((r) => r.idempotencyKey === idempotencyKey);
    if (seen) return { refundId: seen.refundId, amount: seen.amount };
    const refundId = `R-${orderId}-${this.refunds().length + 1}`;
    appendFileSync(
      refundsFile(),
      `${JSON.stringify({ refundId, orderId, amount, idempotencyKey })}\n`,
    );
    return { refundId, amount };
  }

  refunds(): Array<{ refundId: string; orderId: string; amount: number; idempotencyKey: string }> {
    if (!existsSync(refundsFile())) return [];
    return readFileSync(refundsFile(), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map(
        (line) =>
          JSON.parse(line) as {
            refundId: string;
            orderId: string;
            amount: number;
            idempotencyKey: string;
          },
      );
  }
}
