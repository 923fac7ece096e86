import { Injectable } from '@nestjs/common';
import { registerErrorClasses } from 'waymark';

/** A text-completion model. The example uses {@link FakeLlm}; a real one wraps a provider SDK. */
export interface Llm {
  /** Completes `prompt`. `signal` aborts the request (a step timeout, a cancelled run). */
  complete(prompt: string, options?: { signal?: AbortSignal }): Promise<string>;
}

/** Nest injection token of the {@link Llm}. */
export const LLM = Symbol('Llm');

/** The model provider said "too many requests" (HTTP 429): transient, worth another try. */
export class RateLimitError extends Error {
  readonly status = 429;

  constructor(message = 'rate limited (HTTP 429)') {
    super(message);
    this.name = 'RateLimitError';
  }
}
// A failed attempt replayed from the store is still a RateLimitError.
registerErrorClasses(RateLimitError);

/** A stand-in model: no network, the same answer for the same prompt. */
@Injectable()
export class FakeLlm implements Llm {
  /** Prompts this instance completed. */
  readonly prompts: string[] = [];

  async complete(prompt: string, options: { signal?: AbortSignal } = {}): Promise<string> {
    options.signal?.throwIfAborted();
    this.prompts.push(prompt);
    const item = /^Item: (.+)$/m.exec(prompt)?.[1] ?? 'the item';
    return `${item}: needed for the team's work; within budget.`;
  }
}

/** A purchase requisition as the ERP takes it: what the service drafted. */
export interface Draft {
  /** The purchase request it was drafted from. */
  id: string;
  item: string;
  quantity: number;
  /** In cents. */
  total: number;
  justification: string;
}

/** The ERP's answer to a submitted requisition. */
export interface Receipt {
  requisitionId: string;
}

/** A purchase order the ERP placed with the supplier. */
export interface PlacedOrder {
  orderId: string;
  requisitionId: string;
  approvedBy: string;
}

/** The ERP, reduced to what the service calls. Every call takes an idempotency key. */
export interface Erp {
  /** Files a requisition; a key seen before returns the first receipt and files nothing. */
  submit(draft: Draft, options: { idempotencyKey: string }): Promise<Receipt>;
  /** Turns an approved requisition into a purchase order; a repeated key orders nothing. */
  placeOrder(
    requisitionId: string,
    approvedBy: string,
    options: { idempotencyKey: string },
  ): Promise<PlacedOrder>;
}

/** Nest injection token of the {@link Erp}. */
export const ERP = Symbol('Erp');

/** An in-memory ERP that deduplicates by idempotency key and keeps what it did. */
@Injectable()
export class FakeErp implements Erp {
  /** Requisitions this instance filed. */
  readonly requisitions: Array<Draft & Receipt> = [];
  /** Orders this instance placed. */
  readonly orders: PlacedOrder[] = [];
  private readonly responses = new Map<string, Receipt | PlacedOrder>();

  async submit(draft: Draft, options: { idempotencyKey: string }): Promise<Receipt> {
    return this.once(options.idempotencyKey, () => {
      const receipt = { requisitionId: `REQ-${this.sequence(this.requisitions.length)}` };
      this.requisitions.push({ ...draft, ...receipt });
      return receipt;
    });
  }

  async placeOrder(
    requisitionId: string,
    approvedBy: string,
    options: { idempotencyKey: string },
  ): Promise<PlacedOrder> {
    return this.once(options.idempotencyKey, () => {
      const order = {
        orderId: `PO-${this.sequence(this.orders.length)}`,
        requisitionId,
        approvedBy,
      };
      this.orders.push(order);
      return order;
    });
  }

  private once<T extends Receipt | PlacedOrder>(key: string, effect: () => T): T {
    const seen = this.responses.get(key);
    if (seen) return seen as T;
    const response = effect();
    this.responses.set(key, response);
    return response;
  }

  private sequence(count: number): string {
    return String(count + 1).padStart(4, '0');
  }
}
