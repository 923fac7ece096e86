import { ConfigurationError } from '../../../errors/ConfigurationError';
import type { StepRow } from '../../../store/rows';
import { attemptAsItIs, type CheckpointWriter, type StepWrite } from './CheckpointWriter';

/**
 * Transactional steps where waymark stores runs in a database it opened itself: their writes
 * cannot share a transaction with the checkpoint, so the step is refused before it runs.
 */
export class RefusedTransactionalWriter implements CheckpointWriter {
  begin(step: StepWrite): Promise<undefined> {
    return Promise.reject(
      new ConfigurationError(
        `@Step on ${step.target} is transactional, but waymark stores runs in a database ` +
          "it opened itself; pass the application's TypeORM DataSource: Waymark.create({ database: dataSource })",
      ),
    );
  }

  readonly attempt = attemptAsItIs;

  write(_step: StepWrite, row: StepRow): Promise<StepRow> {
    return Promise.resolve(row);
  }

  abandon(): Promise<void> {
    return Promise.resolve();
  }
}
