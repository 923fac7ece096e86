import {
  BadRequestException,
  Body,
  ConflictException,
  Controller,
  Get,
  Headers,
  HttpCode,
  NotFoundException,
  Param,
  Post,
  Sse,
  type MessageEvent,
} from '@nestjs/common';
import { from, map, type Observable } from 'rxjs';
import {
  isRunFinishedError,
  isRunNotFoundError,
  storedOutcomeOf,
  WaymarkRuntime,
  type RunStatus,
  type RunSummary,
  type StepRecord,
} from 'waymark';
import { ProcurementService, type Approval, type PurchaseRequest } from './ProcurementService';

/** The body of `GET /purchases/:id`: the stored run, its steps, and how it ended. */
export interface PurchaseView extends RunSummary {
  steps: StepRecord[];
  /** A completed run's result. */
  result?: unknown;
  /** A failed or cancelled run's error. */
  error?: { name: string; message: string };
}

const ENDED: RunStatus[] = ['completed', 'failed', 'cancelled'];

/**
 * HTTP in front of the procurement workflow. Starting a run answers 202 as soon as the run
 * is stored; it executes in the background and survives this process.
 */
@Controller('purchases')
export class PurchasesController {
  constructor(private readonly runtime: WaymarkRuntime) {}

  /** Starts (or finds: one request, one run) the procurement run of the request. */
  @Post()
  @HttpCode(202)
  async create(@Body() body: unknown): Promise<{ runId: string }> {
    const handle = await this.runtime.start(ProcurementService, 'procure', [purchaseRequest(body)]);
    return { runId: handle.runId };
  }

  /** The run's status and steps; 404 for an unknown id. */
  @Get(':id')
  async show(@Param('id') runId: string): Promise<PurchaseView> {
    const handle = this.runtime.handle(runId);
    const run = await handle.describe().catch(httpError);
    const view: PurchaseView = { ...run, steps: await handle.history() };
    if (ENDED.includes(run.status)) {
      // An ended run's outcome is stored: result() reads it, it does not wait. Its error comes
      // marked as the stored outcome (a line on how to retry it); the client gets it as stored.
      await handle.result().then(
        (result) => (view.result = result),
        (thrown: unknown) => {
          const error = (storedOutcomeOf(thrown)?.error ?? thrown) as Error;
          view.error = { name: error.name, message: error.message };
        },
      );
    }
    return view;
  }

  /**
   * The run's stream `name` as server-sent events, live: one event per entry with the offset
   * as its id (a browser's `EventSource` reconnects after the last one), `restart` events
   * when a step began again; the response ends when the stream closes or the run ends.
   */
  @Sse(':id/streams/:name')
  stream(
    @Param('id') runId: string,
    @Param('name') name: string,
    @Headers('last-event-id') lastEventId?: string,
  ): Observable<MessageEvent> {
    const after = Number(lastEventId);
    const fromOffset = Number.isSafeInteger(after) && after >= 0 ? after + 1 : 0;
    return from(this.runtime.readStream<string>(runId, name, { from: fromOffset })).pipe(
      map(({ offset, seq, chunk, restart }) =>
        restart
          ? { id: String(offset), type: 'restart', data: { seq, restart } }
          : { id: String(offset), data: { seq, chunk } },
      ),
    );
  }

  /** Sends the `approval` signal; 404 for an unknown run, 409 for one that has ended. */
  @Post(':id/approval')
  @HttpCode(202)
  async approve(@Param('id') runId: string, @Body() body: unknown): Promise<{ runId: string }> {
    await this.runtime.signal(runId, 'approval', approval(body)).catch(httpError);
    return { runId };
  }
}

/** Waymark's "no such run" and "run has ended" as HTTP errors; anything else is a 500. */
function httpError(error: unknown): never {
  if (isRunNotFoundError(error)) throw new NotFoundException(error.message);
  if (isRunFinishedError(error)) throw new ConflictException(error.message);
  throw error;
}

function purchaseRequest(body: unknown): PurchaseRequest {
  const b = (body ?? {}) as Record<string, unknown>;
  const text = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length < 200;
  const count = (v: unknown): v is number => Number.isInteger(v) && (v as number) > 0;
  if (
    !text(b.id) ||
    !text(b.item) ||
    !text(b.requester) ||
    !count(b.quantity) ||
    !count(b.unitPrice)
  ) {
    throw new BadRequestException(
      'expected { id, item, requester } (strings) and { quantity, unitPrice } (positive integers)',
    );
  }
  return {
    id: b.id,
    item: b.item,
    quantity: b.quantity,
    unitPrice: b.unitPrice,
    requester: b.requester,
  };
}

function approval(body: unknown): Approval {
  const b = (body ?? {}) as Record<string, unknown>;
  if (typeof b.approved !== 'boolean' || typeof b.by !== 'string' || b.by.length === 0) {
    throw new BadRequestException('expected { approved: boolean, by: string }');
  }
  return { approved: b.approved, by: b.by };
}
