import type { EntityManager } from 'typeorm';
import type { Clock } from '../../../ground/Clock';
import { LeaseLostError } from '../../../errors/LeaseLostError';
import type { StepRow } from '../../../store/rows';
import type { RunStore } from '../../../store/RunStore';
import type { StepReplay } from '../StepReplay';
import type { CheckpointWriter, StepWrite } from './CheckpointWriter';
import { insertCheckpoint } from './PlainWriter';
import { withKey } from './withKey';

/** A transactional attempt whose checkpoint committed with the body's writes. */
export class CommittedWithBody {
  constructor(
    readonly value: unknown,
    readonly row: StepRow,
  ) {}
}

/**
 * `@Step({ transactional: true })`: each attempt runs in one transaction with the body's
 * writes (`ctx.entityManager`) and the checkpoint, so both commit or neither does. A failed
 * attempt's outcome is stored like a plain step's.
 */
export class TransactionalWriter implements CheckpointWriter {
  constructor(
    private readonly store: RunStore,
    private readonly replay: StepReplay,
    private readonly clock: Clock,
    private readonly afterEffect: (step: StepWrite) => void,
  ) {}

  write(step: StepWrite, row: StepRow): Promise<StepRow> {
    return insertCheckpoint(this.store, step.run, row);
  }

  abandon(): Promise<void> {
    return Promise.resolve();
  }

  readonly attempt = (
    step: StepWrite,
    attempt: number,
    body: (manager: EntityManager) => Promise<unknown>,
  ): Promise<CommittedWithBody> =>
    this.store.transaction(
      `run transactional step "${step.name}"`,
      async (tx, manager) => {
        const value = await body(manager);
        const built = this.replay.build(
          step.run,
          step.seq,
          step.name,
          { ok: true, value },
          attempt,
          step.startedAt,
          this.clock.now(),
        );
        if (!built.settled.ok) throw built.settled.error;
        this.afterEffect(step);
        // Another process recorded this step first: roll these writes back.
        const row = withKey(built.row, step.storedKey);
        if ((await tx.insertStep(row, step.run.epoch)) === 'duplicate') {
          throw new LeaseLostError(step.run.runId, step.run.epoch);
        }
        return new CommittedWithBody(value, row);
      },
      { userWork: true },
    );
}
