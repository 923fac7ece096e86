import type { InjectionToken } from 'tsyringe';
import type { EffectRecorder } from './EffectRecorder';

/** What to charge, in the shape of a card-payment API's "create charge" call. */
export interface ChargeRequest {
  customerId: string;
  /** In the currency's smallest unit (cents). */
  amount: number;
  currency: string;
  description: string;
}

/** A charge the gateway made. */
export interface Charge {
  id: string;
  customerId: string;
  amount: number;
  currency: string;
}

/**
 * A card-payment API that deduplicates on an idempotency key, as Stripe does with its
 * `Idempotency-Key` header: a request with a key it has seen returns the first response
 * and charges nobody again.
 */
export interface PaymentGateway {
  charge(request: ChargeRequest, options: { idempotencyKey: string }): Promise<Charge>;
}

/**
 * The container token of the {@link PaymentGateway}.
 *
 * @example
 * ```ts
 * container.registerInstance(PAYMENT_GATEWAY, new FakePaymentGateway());
 * ```
 */
export const PAYMENT_GATEWAY: InjectionToken<PaymentGateway> = Symbol('PaymentGateway');

/**
 * An in-memory gateway that honours idempotency keys. It stands for the remote system, so
 * it outlives a crash of the agent's process: its memory is "the other side of the wire".
 * Each real charge is kept in {@link charges} and, when given a recorder, recorded there as
 * `charge:<customerId>`.
 */
export class FakePaymentGateway implements PaymentGateway {
  /** Every charge really made, in order. */
  readonly charges: Charge[] = [];
  private readonly byKey = new Map<string, Charge>();

  constructor(private readonly recorder?: EffectRecorder) {}

  async charge(request: ChargeRequest, options: { idempotencyKey: string }): Promise<Charge> {
    const seen = this.byKey.get(options.idempotencyKey);
    if (seen) return seen;
    const charge: Charge = {
      id: `ch_${String(this.charges.length + 1).padStart(4, '0')}`,
      customerId: request.customerId,
      amount: request.amount,
      currency: request.currency,
    };
    this.byKey.set(options.idempotencyKey, charge);
    this.charges.push(charge);
    await this.recorder?.record(
      `charge:${request.customerId}`,
      `${charge.id} ${request.amount} ${request.currency} key=${options.idempotencyKey}`,
    );
    return charge;
  }
}
