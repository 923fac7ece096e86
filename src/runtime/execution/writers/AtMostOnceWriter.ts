import type { StepRow } from '../../../store/rows';
import type { RunStore } from '../../../store/RunStore';
import { stepRow } from '../stepRow';
import { attemptAsItIs, type CheckpointWriter, type StepWrite } from './CheckpointWriter';

/**
 * `@Step({ atMostOnce: true })`: an intent marker is stored before the body runs, and the
 * outcome over it; a resume that finds the marker alone knows the body may have run.
 */
export class AtMostOnceWriter implements CheckpointWriter {
  constructor(private readonly store: RunStore) {}

  async begin(step: StepWrite): Promise<undefined> {
    const intent = stepRow({
      ...{ runId: step.run.runId, seq: step.seq, name: step.name, status: 'started' },
      ...{ output: null, attempts: 0, startedAt: step.startedAt, finishedAt: null },
      idempotencyKey: step.storedKey,
    });
    await this.store.insertStep(intent, step.run.epoch);
    return undefined;
  }

  readonly attempt = attemptAsItIs;

  async write(step: StepWrite, row: StepRow): Promise<StepRow> {
    await this.store.completeIntent(row, step.run.epoch);
    return row;
  }

  abandon(): Promise<void> {
    return Promise.resolve();
  }
}
