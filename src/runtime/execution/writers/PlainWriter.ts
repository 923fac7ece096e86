import type { StepRow } from '../../../store/rows';
import type { RunStore } from '../../../store/RunStore';
import { attemptAsItIs, type CheckpointWriter, type StepWrite } from './CheckpointWriter';

/** Inserts the checkpoint of `run`, through a store that may be bound to a transaction. */
export function insertCheckpoint(
  store: RunStore,
  run: { readonly epoch: number },
  row: StepRow,
): Promise<StepRow> {
  return store.insertStep(row, run.epoch).then((result) =>
    result === 'inserted'
      ? row
      : // Another process stored this seq first (a fenced-out writer): its outcome wins.
        store.loadStep(row.runId, row.seq).then((stored) => stored ?? row),
  );
}

/** The usual step: its outcome is one fenced insert, nothing before the body. */
export class PlainWriter implements CheckpointWriter {
  constructor(private readonly store: RunStore) {}

  begin(): undefined {
    return undefined;
  }

  readonly attempt = attemptAsItIs;

  write(step: StepWrite, row: StepRow): Promise<StepRow> {
    return insertCheckpoint(this.store, step.run, row);
  }

  abandon(): Promise<void> {
    return Promise.resolve();
  }
}
