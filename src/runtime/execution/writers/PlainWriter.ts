import type { StepRow } from '../../../store/rows';
import type { StepRecords } from '../StepRecords';
import { attemptAsItIs, type CheckpointWriter, type StepWrite } from './CheckpointWriter';

/** The usual step: its outcome is one fenced record, nothing before the body. */
export class PlainWriter implements CheckpointWriter {
  constructor(private readonly records: StepRecords) {}

  begin(): undefined {
    return undefined;
  }

  readonly attempt = attemptAsItIs;

  write(step: StepWrite, row: StepRow): StepRow | Promise<StepRow> {
    return this.records.recordNow(row, step.run);
  }

  abandon(): Promise<void> {
    return Promise.resolve();
  }
}
