import type { EntityManager } from 'typeorm';
import type { Codec } from '../../../codec/Codec';
import type { Clock } from '../../../ground/Clock';
import { isLeaseLostError, LeaseLostError } from '../../../errors/LeaseLostError';
import type { StepRow } from '../../../store/rows';
import type { RunStore } from '../../../store/RunStore';
import { OwnStatementFailure } from '../../../store/connection/OwnStatementFailure';
import type { Stores } from '../../../store/Stores';
import type { StepReplay } from '../StepReplay';
import type { AttemptBody, CheckpointWriter, StepWrite } from './CheckpointWriter';
import type { StepRecords } from '../StepRecords';

/** A transactional attempt whose checkpoint committed with the body's writes. */
export class CommittedWithBody {
  constructor(
    readonly value: unknown,
    readonly row: StepRow,
  ) {}
}

/** The step's seq was found taken inside the transaction: its writes are rolled back. */
const RECORDED_ALREADY = Symbol('recorded already');

/**
 * `@Step({ transactional: true })`: each attempt runs in one transaction with the body's
 * writes (`ctx.entityManager`) and the checkpoint, so both commit or neither does. A failed
 * attempt's outcome is stored like a plain step's. A transaction whose connection dies is
 * run again, body and all (its writes rolled back with it) — unless its COMMIT landed
 * unanswered, which the stored checkpoint shows: then the step is done, with what was stored.
 */
export class TransactionalWriter implements CheckpointWriter {
  constructor(
    private readonly stores: Stores,
    private readonly records: StepRecords,
    private readonly replay: StepReplay,
    private readonly codec: Codec,
    private readonly clock: Clock,
    private readonly afterEffect: (step: StepWrite) => void,
  ) {}

  begin(): undefined {
    return undefined;
  }

  write(step: StepWrite, row: StepRow): Promise<StepRow> {
    return this.records.record(row, step.run);
  }

  abandon(): Promise<void> {
    return Promise.resolve();
  }

  readonly attempt = async (
    step: StepWrite,
    attempt: number,
    body: AttemptBody,
  ): Promise<CommittedWithBody> => {
    try {
      return await this.stores.transaction(
        `run transactional step "${step.name}"`,
        (tx, manager) => this.once(tx.runs, manager, step, attempt, body),
        { userWork: { committed: () => this.recorded(step) } },
      );
    } catch (error) {
      if (error !== RECORDED_ALREADY) throw error;
      // An earlier try of this claim committed after all, or another process took the run.
      const recorded = await this.recorded(step);
      if (!recorded) throw new LeaseLostError(step.run.runId, step.run.epoch);
      return recorded;
    }
  };

  private async once(
    tx: RunStore,
    manager: EntityManager,
    step: StepWrite,
    attempt: number,
    body: AttemptBody,
  ): Promise<CommittedWithBody> {
    const value = await body(manager);
    const built = this.replay.build(
      step.run,
      step.seq,
      step.name,
      { ok: true, value },
      attempt,
      step.startedAt,
      this.clock.now(),
      step.storedKey,
    );
    if (!built.settled.ok) throw built.settled.error;
    this.afterEffect(step);
    const { row } = built;
    const inserted = await tx.insertStep(row, step.run.epoch).catch((error: unknown) => {
      // The checkpoint is the store's write, not the body's: its failure is never the step's.
      throw isLeaseLostError(error) ? error : new OwnStatementFailure(error);
    });
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- a marker, caught in attempt()
    if (inserted === 'duplicate') throw RECORDED_ALREADY;
    return new CommittedWithBody(value, row);
  }

  /**
   * This claim's checkpoint of the step, if one is stored: the workflow then sees what the
   * history holds, as a resume would. `LeaseLostError` when another claim holds the run.
   */
  private async recorded(step: StepWrite): Promise<CommittedWithBody | undefined> {
    const { runId, epoch } = step.run;
    const row = await this.stores.runs.ownStep(runId, step.seq, epoch);
    if (!row) return undefined;
    if (row.status !== 'completed') throw new LeaseLostError(runId, epoch);
    const value = this.codec.decode(row.output ?? '', `step #${step.seq} "${step.name}" result`);
    return new CommittedWithBody(value, row);
  }
}
