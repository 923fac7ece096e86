import type { Clock } from '../../../ground/Clock';
import type { StepRow } from '../../../store/rows';
import type { Stores } from '../../../store/Stores';
import type { GlobalKeyClaims } from '../GlobalKeyClaims';
import { attemptAsItIs, type CheckpointWriter, type StepWrite } from './CheckpointWriter';
import { StepRecords } from '../StepRecords';

/**
 * `@Idempotent({ scope: 'global' })`: the key is claimed before the body runs (a key another
 * run completed gives its result instead), and the checkpoint and the key's result commit in
 * one transaction.
 */
export class GlobalKeyWriter implements CheckpointWriter {
  constructor(
    private readonly stores: Stores,
    private readonly claims: GlobalKeyClaims,
    private readonly clock: Clock,
  ) {}

  async begin(step: StepWrite): Promise<string | undefined> {
    const claim = await this.claims.claim(step.key, step.run.runId, step.seq);
    return claim.owned ? undefined : claim.output;
  }

  readonly attempt = attemptAsItIs;

  write(step: StepWrite, row: StepRow): Promise<StepRow> {
    return this.stores.transaction(
      `record step #${step.seq} of run "${step.run.runId}"`,
      async (tx) => {
        const stored = await StepRecords.within(tx.runs).record(row, step.run);
        const { keys } = tx;
        if (stored.status === 'completed') {
          await keys.complete(
            step.key,
            step.run.runId,
            step.seq,
            stored.output ?? '',
            this.clock.now(),
          );
        } else {
          await keys.release(step.key, step.run.runId, step.seq);
        }
        return stored;
      },
      { retry: true },
    );
  }

  abandon(step: StepWrite): Promise<void> {
    return this.stores.keys.release(step.key, step.run.runId, step.seq);
  }
}
