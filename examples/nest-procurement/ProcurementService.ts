import { Inject, Injectable } from '@nestjs/common';
import { Idempotent, Retry, Step, StepTimeoutError, Workflow, WorkflowContext } from 'waymark';
import {
  ERP,
  LLM,
  RateLimitError,
  type Draft,
  type Erp,
  type Llm,
  type PlacedOrder,
  type Receipt,
} from './fakes';

/** What an employee asks to buy: the body of `POST /purchases`. */
export interface PurchaseRequest {
  id: string;
  item: string;
  quantity: number;
  /** In cents. */
  unitPrice: number;
  requester: string;
}

/** The payload of the `approval` signal: the body of `POST /purchases/:id/approval`. */
export interface Approval {
  approved: boolean;
  by: string;
}

/** How a procurement run ends. */
export type Outcome =
  | { status: 'ordered'; requisitionId: string; orderId: string; approvedBy: string }
  | { status: 'rejected'; requisitionId: string; rejectedBy: string };

/**
 * An ordinary Nest service whose `procure` method is a durable workflow: draft a requisition
 * with a model, file it in the ERP, wait — days, across deploys and crashes — for a human's
 * approval, then place the order. Nest injects the model, the ERP and `WorkflowContext`; a
 * run resumed by a worker in another process executes on that process's Nest-built instance.
 *
 * @example
 * ```ts
 * const handle = await runtime.start(ProcurementService, 'procure', [request]);
 * // … later, from any process:
 * await runtime.signal(handle.runId, 'approval', { approved: true, by: 'dana@acme.example' });
 * ```
 */
@Injectable()
export class ProcurementService {
  constructor(
    @Inject(LLM) private readonly llm: Llm,
    @Inject(ERP) private readonly erp: Erp,
    private readonly ctx: WorkflowContext,
  ) {}

  /** draft → submit → wait for `approval` (7 days at most) → place the order. */
  @Workflow({ name: 'procurement', version: '1', id: (r: PurchaseRequest) => `po-${r.id}` })
  async procure(request: PurchaseRequest): Promise<Outcome> {
    const receipt = await this.submit(await this.draft(request));
    const approval = await this.ctx.waitForSignal<Approval>('approval', { timeout: '7d' });
    if (!approval.approved) {
      return { status: 'rejected', requisitionId: receipt.requisitionId, rejectedBy: approval.by };
    }
    const order = await this.place(receipt, approval);
    return { status: 'ordered', ...order };
  }

  /** Asks the model for a justification; rate limits and slow answers are retried. */
  @Step({ timeout: '30s' })
  @Retry({
    maxAttempts: 4,
    backoff: { initial: '500ms', factor: 2, max: '10s', jitter: 'full' },
    retryOn: [RateLimitError, StepTimeoutError],
  })
  async draft(request: PurchaseRequest): Promise<Draft> {
    const prompt = [
      'Justify this purchase in one sentence.',
      `Item: ${request.item}`,
      `Requester: ${request.requester}`,
    ].join('\n');
    const justification = await this.llm.complete(prompt, { signal: this.ctx.signal });
    // Shown live at GET /purchases/:id/streams/draft (a real model would stream its tokens).
    const out = this.ctx.stream<string>('draft');
    for (const word of justification.split(/(?<= )/)) out.write(word);
    await out.close();
    const { id, item, quantity } = request;
    return { id, item, quantity, total: quantity * request.unitPrice, justification };
  }

  /** Files the requisition once per request, however many runs or resumes get here. */
  @Step()
  @Idempotent({ key: (d: Draft) => `po-submit-${d.id}`, scope: 'global' })
  async submit(draft: Draft): Promise<Receipt> {
    return this.erp.submit(draft, { idempotencyKey: this.ctx.idempotencyKey });
  }

  /** Places the order once per requisition. */
  @Step()
  @Idempotent({ key: (r: Receipt) => `po-order-${r.requisitionId}`, scope: 'global' })
  async place(receipt: Receipt, approval: Approval): Promise<PlacedOrder> {
    return this.erp.placeOrder(receipt.requisitionId, approval.by, {
      idempotencyKey: this.ctx.idempotencyKey,
    });
  }
}
