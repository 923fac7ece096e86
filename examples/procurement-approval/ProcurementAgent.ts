import { inject, injectable } from 'tsyringe';
import {
  Idempotent,
  isSignalTimeoutError,
  Retry,
  Step,
  StepTimeoutError,
  Workflow,
  WorkflowContext,
  type Duration,
} from 'waymark';
import { ERP, LLM, RateLimitError, type Draft, type Erp, type Llm, type Receipt } from './fakes';

/** What an employee asks to buy. */
export interface PurchaseRequest {
  id: string;
  item: string;
  quantity: number;
  /** In cents. */
  unitPrice: number;
  currency: string;
  requester: string;
  reason: string;
}

/** The payload of the `approval` signal: `runtime.signal(runId, 'approval', approval)`. */
export interface Approval {
  approved: boolean;
  by: string;
}

/** How a procurement run ends. `escalatedTo` is set when the first approver did not answer. */
export type Outcome =
  | {
      status: 'ordered';
      requisitionId: string;
      orderId: string;
      approvedBy: string;
      escalatedTo: string | null;
    }
  | { status: 'rejected'; requisitionId: string; rejectedBy: string; escalatedTo: string | null }
  | { status: 'expired'; requisitionId: string; escalatedTo: string };

/** How long each approver has to answer before the request moves up (then expires). */
export const APPROVAL_WINDOW: Duration = '7d';

/** The run id of `procure(request)`: one request, one run, so starting it again finds it. */
export function procurementRunId(request: PurchaseRequest): string {
  return `po-${request.id}`;
}

/**
 * Drafts a purchase requisition with a model, files it in the ERP, and waits — days, across
 * deploys, in no process's memory — for a human to approve it. No answer in
 * {@link APPROVAL_WINDOW}: the requisition is escalated and the next approver gets as long.
 *
 * @example
 * ```ts
 * container.registerInstance(LLM, new FakeLlm());
 * container.registerInstance(ERP, new FakeErp());
 * const runtime = await Waymark.create({ database: 'sqlite:./procurement.db' });
 * const handle = await runtime.start(ProcurementAgent, 'procure', [request]);
 * // … later, from any process:
 * await runtime.signal(handle.runId, 'approval', { approved: true, by: 'dana@acme.example' });
 * ```
 */
@injectable()
export class ProcurementAgent {
  constructor(
    @inject(LLM) private readonly llm: Llm,
    @inject(ERP) private readonly erp: Erp,
    private readonly ctx: WorkflowContext,
  ) {}

  /** draft → submit → wait for approval (→ escalate → wait) → place the order. */
  @Workflow({ name: 'procurement', version: '1', id: procurementRunId })
  async procure(request: PurchaseRequest): Promise<Outcome> {
    const draft = await this.draft(request);
    const receipt = await this.submit(draft);
    const { requisitionId } = receipt;
    let approval = await this.approval();
    let escalatedTo: string | null = null;
    if (!approval) {
      escalatedTo = await this.escalate(receipt);
      approval = await this.approval();
      if (!approval) return { status: 'expired', requisitionId, escalatedTo };
    }
    if (!approval.approved) {
      return { status: 'rejected', requisitionId, rejectedBy: approval.by, escalatedTo };
    }
    const { orderId } = await this.place(receipt, approval);
    return { status: 'ordered', requisitionId, orderId, approvedBy: approval.by, escalatedTo };
  }

  /**
   * Asks the model for the justification; the numbers are computed, not generated. A rate
   * limit or a slow answer is retried with backoff (the attempts are stored, so a crash does
   * not reset the budget); any other error fails the step at once.
   */
  @Step({ timeout: '60s' })
  @Retry({
    maxAttempts: 5,
    backoff: { initial: '1s', factor: 2, max: '1m', jitter: 'full' },
    retryOn: [RateLimitError, StepTimeoutError],
  })
  async draft(request: PurchaseRequest): Promise<Draft> {
    const prompt = [
      'Write a one-sentence business justification for this purchase.',
      `Item: ${request.item}`,
      `Quantity: ${request.quantity}`,
      `Requester: ${request.requester}`,
      `Reason: ${request.reason}`,
    ].join('\n');
    const justification = await this.llm.complete(prompt, { signal: this.ctx.signal });
    return {
      id: request.id,
      item: request.item,
      quantity: request.quantity,
      total: request.quantity * request.unitPrice,
      currency: request.currency,
      requester: request.requester,
      justification: justification.trim(),
    };
  }

  /**
   * Files the requisition. At-least-once like every step (a crash after the ERP answered
   * runs it again), made exactly-once by the key: the same on every attempt and resume, and
   * global, so a second run for the same request gets this receipt and files nothing.
   */
  @Step()
  @Idempotent({ key: (d: Draft) => `po-submit-${d.id}`, scope: 'global' })
  async submit(d: Draft): Promise<Receipt> {
    return this.erp.submit(d, { idempotencyKey: this.ctx.idempotencyKey });
  }

  /** Routes the requisition to the next approver; returns who that is. */
  @Step()
  async escalate(receipt: Receipt): Promise<string> {
    return this.erp.escalate(receipt.requisitionId, { idempotencyKey: this.ctx.idempotencyKey });
  }

  /**
   * Places the order, keyed by requisition: one requisition is ordered once, however many
   * runs (or approvals) reach this step.
   */
  @Step()
  @Idempotent({ key: (r: Receipt) => `po-order-${r.requisitionId}`, scope: 'global' })
  async place(receipt: Receipt, approval: Approval): Promise<{ orderId: string }> {
    const order = await this.erp.placeOrder(receipt.requisitionId, approval.by, {
      idempotencyKey: this.ctx.idempotencyKey,
    });
    return { orderId: order.orderId };
  }

  /** The next `approval` signal, or null when none came within the window. */
  private async approval(): Promise<Approval | null> {
    try {
      return await this.ctx.waitForSignal<Approval>('approval', { timeout: APPROVAL_WINDOW });
    } catch (error) {
      if (isSignalTimeoutError(error)) return null;
      throw error;
    }
  }
}
