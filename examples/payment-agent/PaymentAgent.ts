import { inject, injectable } from 'tsyringe';
import { Idempotent, isUnknownOutcomeError, Step, Workflow, WorkflowContext } from 'waymark';
import { MAILER, type Mailer } from './Mailer';
import { Order } from './Order';
import { PAYMENT_GATEWAY, type PaymentGateway } from './PaymentGateway';

/** What the customer orders. */
export interface OrderRequest {
  id: string;
  customerId: string;
  email: string;
  /** In the currency's smallest unit (cents). */
  amount: number;
  currency: string;
}

/** What a checkout returns. */
export interface CheckoutResult {
  orderId: string;
  chargeId: string;
  /**
   * `'sent'`, or `'check-manually'` when the process died while sending and nobody can
   * tell whether the mail left: a human should look before anyone sends it again.
   */
  confirmation: 'sent' | 'check-manually';
}

/** The run id of `checkout(order)`: one order, one run, so calling again resumes it. */
export function paymentRunId(order: OrderRequest): string {
  return `payment-${order.id}`;
}

/**
 * Takes an order through three side effects, each with the guarantee that fits it:
 * charge the card (keyed exactly-once), record the order (exactly-once in the database),
 * send the confirmation (at most once). If the process dies anywhere, calling
 * `checkout(order)` again continues the run and nothing happens twice.
 *
 * @example
 * ```ts
 * container.registerInstance(PAYMENT_GATEWAY, new FakePaymentGateway());
 * container.registerInstance(MAILER, new FakeMailer());
 * const runtime = await Waymark.create({ database: dataSource }); // the app's DataSource
 * const result = await container.resolve(PaymentAgent).checkout(order);
 * await runtime.close();
 * ```
 */
@injectable()
export class PaymentAgent {
  constructor(
    @inject(PAYMENT_GATEWAY) private readonly gateway: PaymentGateway,
    @inject(MAILER) private readonly mailer: Mailer,
    private readonly ctx: WorkflowContext,
  ) {}

  /** charge → recordOrder → sendConfirmation. */
  @Workflow({ name: 'payment', id: paymentRunId })
  async checkout(order: OrderRequest): Promise<CheckoutResult> {
    const chargeId = await this.charge(order);
    await this.recordOrder(order, chargeId);
    let confirmation: CheckoutResult['confirmation'] = 'sent';
    try {
      await this.sendConfirmation(order, chargeId);
    } catch (error) {
      if (!isUnknownOutcomeError(error)) throw error;
      confirmation = 'check-manually';
    }
    return { orderId: order.id, chargeId, confirmation };
  }

  /**
   * Keyed exactly-once. Like every step it is at-least-once: a crash after the gateway
   * answered and before the checkpoint runs it again. That is safe because the gateway
   * deduplicates: `ctx.idempotencyKey` is the same on every attempt and resume (derived
   * here from the order id), so the second request returns the first charge.
   */
  @Step()
  @Idempotent({ key: (order: OrderRequest) => `charge-${order.id}` })
  async charge(order: OrderRequest): Promise<string> {
    const charge = await this.gateway.charge(
      {
        customerId: order.customerId,
        amount: order.amount,
        currency: order.currency,
        description: `order ${order.id}`,
      },
      { idempotencyKey: this.ctx.idempotencyKey },
    );
    return charge.id;
  }

  /**
   * Exactly-once for a database write. The row goes through `ctx.entityManager`, in the
   * transaction that also stores this step's checkpoint: both commit or neither does, so a
   * resume either finds the step done (and skips it) or writes the row for the first time.
   */
  @Step({ transactional: true })
  async recordOrder(order: OrderRequest, chargeId: string): Promise<void> {
    await this.ctx.entityManager.insert(Order, {
      id: order.id,
      customerId: order.customerId,
      amount: order.amount,
      currency: order.currency,
      chargeId,
    });
  }

  /**
   * At most once. The mailer has no idempotency key, so running this twice sends two
   * mails. An intent marker is stored before the body runs; if the process dies after
   * that and before the outcome is stored, the resume does not send again but throws
   * `UnknownOutcomeError`, which `checkout` turns into `'check-manually'`.
   */
  @Step({ atMostOnce: true })
  async sendConfirmation(order: OrderRequest, chargeId: string): Promise<void> {
    await this.mailer.send({
      to: order.email,
      subject: `Order ${order.id} is paid`,
      text: `We charged ${order.amount} ${order.currency} (${chargeId}). Thank you!`,
    });
  }
}
