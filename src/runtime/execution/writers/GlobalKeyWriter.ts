import type { Clock } from '../../../ground/Clock';
import type { StepRow } from '../../../store/rows';
import type { Stores } from '../../../store/Stores';
import type { GlobalKeyClaims } from '../GlobalKeyClaims';
import { attemptAsItIs, type CheckpointWriter, type StepWrite } from './CheckpointWriter';
import { StepRecords } from '../StepRecords';

/** What writing found when another run had taken the key over. */
const KEY_MOVED_ON = Symbol('key moved on');

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

  async write(step: StepWrite, row: StepRow): Promise<StepRow> {
    for (;;) {
      const written = await this.writeHolding(step, row);
      if (written !== KEY_MOVED_ON) return written;
      // The key moved on while this run was frozen or cut off (another run found its holder
      // gone and took it over): nothing was written. Claim the key again, as a run
      // arriving now would, so every run under one key gets its one result.
      const claim = await this.claims.claim(step.key, step.run.runId, step.seq);
      if (!claim.owned) {
        const taken = { ...row, output: claim.output };
        return new StepRecords(this.stores.runs).record(taken, step.run);
      }
    }
  }

  /**
   * The key's result and the checkpoint in one transaction, while the key is this step's. The
   * key is completed first: that update is the fence (it takes the key's row lock), and when
   * it finds the key moved on, nothing is written.
   */
  private writeHolding(step: StepWrite, row: StepRow): Promise<StepRow | typeof KEY_MOVED_ON> {
    const { key, seq } = step;
    const { runId } = step.run;
    return this.stores.transaction(
      `record step #${seq} of run "${runId}"`,
      async ({ runs, keys }) => {
        const now = this.clock.now();
        const completed = row.status === 'completed';
        if (completed && !(await keys.complete(key, runId, seq, row.output ?? '', now))) {
          return KEY_MOVED_ON;
        }
        const stored = await StepRecords.within(runs).record(row, step.run);
        if (stored === row) {
          if (!completed) await keys.release(key, runId, seq);
        } else if (stored.status === 'completed') {
          await keys.complete(key, runId, seq, stored.output ?? '', now);
        } else {
          await keys.release(key, runId, seq);
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
