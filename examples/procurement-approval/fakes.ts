import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { InjectionToken } from 'tsyringe';
import { registerErrorClasses } from 'waymark';

/** A text-completion model. The example uses {@link FakeLlm}; a real one wraps a provider SDK. */
export interface Llm {
  /** Completes `prompt`. `signal` aborts the request (a step timeout, a cancelled run). */
  complete(prompt: string, options?: { signal?: AbortSignal }): Promise<string>;
}

/** The container token of the {@link Llm}. */
export const LLM: InjectionToken<Llm> = Symbol('Llm');

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

/**
 * A stand-in model: no network, the same answer for the same prompt. The first
 * `rateLimitedCalls` calls fail with {@link RateLimitError}, as a busy provider would.
 */
export class FakeLlm implements Llm {
  /** Calls so far, the rate-limited ones included. */
  calls = 0;

  constructor(private readonly options: { rateLimitedCalls?: number } = {}) {}

  async complete(prompt: string, options: { signal?: AbortSignal } = {}): Promise<string> {
    options.signal?.throwIfAborted();
    this.calls++;
    if (this.calls <= (this.options.rateLimitedCalls ?? 0)) throw new RateLimitError();
    const field = (name: string): string =>
      new RegExp(`^${name}: (.+)$`, 'm').exec(prompt)?.[1] ?? '?';
    return (
      `${field('Quantity')} × ${field('Item')} for ${field('Requester')}: ${field('Reason')}. ` +
      'Within the team budget; no cheaper equivalent in the catalogue.'
    );
  }
}

/** A purchase requisition as the ERP takes it: what the agent drafted. */
export interface Draft {
  /** The purchase request it was drafted from. */
  id: string;
  item: string;
  quantity: number;
  /** In cents. */
  total: number;
  currency: string;
  requester: string;
  justification: string;
}

/** The ERP's answer to a submitted requisition. */
export interface Receipt {
  requisitionId: string;
  /** Who the ERP routed the requisition to for approval. */
  approver: string;
}

/** A purchase order the ERP placed with the supplier. */
export interface PlacedOrder {
  orderId: string;
  requisitionId: string;
}

/** The ERP, reduced to what the agent calls. Every call takes an idempotency key. */
export interface Erp {
  /** Files a requisition; a key seen before returns the first receipt and files nothing. */
  submit(draft: Draft, options: { idempotencyKey: string }): Promise<Receipt>;
  /** Routes a requisition to the next approver up; returns who that is. */
  escalate(requisitionId: string, options: { idempotencyKey: string }): Promise<string>;
  /** Turns an approved requisition into a purchase order. */
  placeOrder(
    requisitionId: string,
    approvedBy: string,
    options: { idempotencyKey: string },
  ): Promise<PlacedOrder>;
}

/** The container token of the {@link Erp}. */
export const ERP: InjectionToken<Erp> = Symbol('Erp');

/** Where a fake records each effect it really performs (`EffectLedger` from `waymark/testing` fits). */
export interface EffectRecorder {
  record(key: string, detail?: string): Promise<void>;
}

/** Everything the fake ERP remembers; JSON, so it can live in a file. */
export interface ErpBook {
  /** Responses by idempotency key: a repeated call gets the first response. */
  responses: Record<string, Receipt | PlacedOrder | string>;
  requisitions: Array<Draft & { requisitionId: string; approver: string }>;
  escalations: Array<{ requisitionId: string; to: string }>;
  orders: Array<PlacedOrder & { approvedBy: string }>;
}

/** Who approves, in order: the first approver, then whoever a requisition escalates to. */
export const APPROVAL_CHAIN = ['dana@acme.example', 'cfo@acme.example'];

/**
 * An ERP that deduplicates by idempotency key. It stands for the remote system, so it
 * outlives the agent's process: in memory by default (tests), or in a JSON file when given
 * one, so that the processes of the command-line walkthrough see one ERP.
 */
export class FakeErp implements Erp {
  private memory: ErpBook = { responses: {}, requisitions: [], escalations: [], orders: [] };

  constructor(private readonly options: { file?: string; recorder?: EffectRecorder } = {}) {}

  /** What the ERP holds now. */
  get book(): ErpBook {
    const { file } = this.options;
    if (file === undefined || !existsSync(file)) return this.memory;
    return JSON.parse(readFileSync(file, 'utf8')) as ErpBook;
  }

  async submit(draft: Draft, options: { idempotencyKey: string }): Promise<Receipt> {
    return this.once(options.idempotencyKey, async (book) => {
      const receipt: Receipt = {
        requisitionId: `REQ-${String(book.requisitions.length + 1).padStart(4, '0')}`,
        approver: APPROVAL_CHAIN[0],
      };
      book.requisitions.push({ ...draft, ...receipt });
      await this.options.recorder?.record(`erp.submit:${draft.id}`, receipt.requisitionId);
      return receipt;
    });
  }

  async escalate(requisitionId: string, options: { idempotencyKey: string }): Promise<string> {
    return this.once(options.idempotencyKey, async (book) => {
      const level = book.escalations.filter((e) => e.requisitionId === requisitionId).length + 1;
      const to = APPROVAL_CHAIN[Math.min(level, APPROVAL_CHAIN.length - 1)];
      book.escalations.push({ requisitionId, to });
      await this.options.recorder?.record(`erp.escalate:${requisitionId}`, to);
      return to;
    });
  }

  async placeOrder(
    requisitionId: string,
    approvedBy: string,
    options: { idempotencyKey: string },
  ): Promise<PlacedOrder> {
    return this.once(options.idempotencyKey, async (book) => {
      const order: PlacedOrder = {
        orderId: `PO-${String(book.orders.length + 1).padStart(4, '0')}`,
        requisitionId,
      };
      book.orders.push({ ...order, approvedBy });
      await this.options.recorder?.record(`erp.order:${requisitionId}`, order.orderId);
      return order;
    });
  }

  /** Performs `effect` unless `key` was seen; either way returns the first response. */
  private async once<T extends Receipt | PlacedOrder | string>(
    key: string,
    effect: (book: ErpBook) => Promise<T>,
  ): Promise<T> {
    const book = this.book;
    if (key in book.responses) return book.responses[key] as T;
    const response = await effect(book);
    book.responses[key] = response;
    this.save(book);
    return response;
  }

  private save(book: ErpBook): void {
    const { file } = this.options;
    if (file === undefined) {
      this.memory = book;
      return;
    }
    // Write-then-rename: a process killed mid-write leaves the previous book, never half of one.
    writeFileSync(`${file}.tmp`, JSON.stringify(book, null, 2));
    renameSync(`${file}.tmp`, file);
  }
}
