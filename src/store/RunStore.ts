import type { DataSource, QueryResult } from 'typeorm';
import { LeaseLostError } from '../errors/LeaseLostError';
import { StoreUnavailableError } from '../errors/StoreUnavailableError';
import type { Lifecycle } from '../runtime/Lifecycle';
import { dialectOf, isDuplicateKey, type DialectName } from './Dialect';
import { toRunRow, toStepRow, type RunRow, type StepRow } from './rows';
import type { RunStatus } from './RunStatus';
import { statementsFor, type Statements } from './statements';

/** The terminal or parked state a run is finished with. */
export interface RunFinish {
  status: Extract<RunStatus, 'completed' | 'failed' | 'needs_attention'>;
  result: string | null;
  error: string | null;
}

/**
 * The one place run and step rows are read and written. Every write of a run's progress
 * is conditional on the run's epoch, so a process that lost the run writes nothing.
 * Each method is one round trip; a dead runtime's store refuses all work.
 */
export class RunStore {
  readonly dialect: DialectName;
  private readonly sql: Statements;

  constructor(
    readonly dataSource: DataSource,
    private readonly lifecycle: Lifecycle,
  ) {
    this.dialect = dialectOf(dataSource);
    this.sql = statementsFor(this.dialect);
  }

  /** Inserts a new run; false when a run with that id already exists. */
  async insertRun(row: RunRow): Promise<boolean> {
    try {
      await this.exec(`create run "${row.id}"`, this.sql.insertRun, [
        row.id,
        row.workflow,
        row.version,
        row.status,
        row.args,
        row.result,
        row.error,
        row.owner,
        row.epoch,
        row.leaseExpiresAt,
        row.wakeAt,
        row.parentRunId,
        row.createdAt,
        row.updatedAt,
      ]);
      return true;
    } catch (error) {
      if (isDuplicateKey(error)) return false;
      throw error;
    }
  }

  async loadRun(runId: string): Promise<RunRow | undefined> {
    const { records } = await this.exec(`read run "${runId}"`, this.sql.selectRun, [runId]);
    return records[0] ? toRunRow(records[0]) : undefined;
  }

  /**
   * Takes the run over from whoever held `expectedEpoch`, moving it to the next epoch.
   * False when someone else moved it first.
   */
  async claimRun(run: RunRow, owner: string, leaseUntil: number, now: number): Promise<boolean> {
    const { affected } = await this.exec(`claim run "${run.id}"`, this.sql.claimRun, [
      owner,
      leaseUntil,
      now,
      run.id,
      run.epoch,
    ]);
    return affected === 1;
  }

  /** The run's whole step history, in sequence order, in one query. */
  async loadHistory(runId: string): Promise<StepRow[]> {
    const { records } = await this.exec(`read history of run "${runId}"`, this.sql.selectHistory, [
      runId,
    ]);
    return records.map((raw: Record<string, unknown>) => toStepRow(runId, raw));
  }

  async loadStep(runId: string, seq: number): Promise<StepRow | undefined> {
    const { records } = await this.exec(
      `read step #${seq} of run "${runId}"`,
      this.sql.selectStep,
      [runId, seq],
    );
    return records[0] ? toStepRow(runId, records[0]) : undefined;
  }

  /**
   * Records a step outcome: the one write of a completed step. Returns `'duplicate'` when
   * an outcome for that seq is already stored (a fenced-out process wrote it first).
   */
  async insertStep(step: StepRow, epoch: number): Promise<'inserted' | 'duplicate'> {
    let result: QueryResult;
    try {
      result = await this.exec(
        `record step #${step.seq} of run "${step.runId}"`,
        this.sql.insertStep,
        [
          step.seq,
          step.name,
          step.status,
          step.output,
          step.attempts,
          step.startedAt,
          step.finishedAt,
          step.runId,
          epoch,
        ],
      );
    } catch (error) {
      if (isDuplicateKey(error)) return 'duplicate';
      throw error;
    }
    if (result.affected !== 1) throw new LeaseLostError(step.runId, epoch);
    return 'inserted';
  }

  /** Stores the run's outcome and releases it; the one write that ends a run. */
  async finishRun(runId: string, epoch: number, finish: RunFinish, now: number): Promise<void> {
    const { affected } = await this.exec(`finish run "${runId}"`, this.sql.finishRun, [
      finish.status,
      finish.result,
      finish.error,
      now,
      runId,
      epoch,
    ]);
    if (affected !== 1) throw new LeaseLostError(runId, epoch);
  }

  /** Runs left `running` by another owner, created before `createdBefore`. */
  async findAbandoned(notOwner: string, createdBefore: number, limit: number): Promise<RunRow[]> {
    const { records } = await this.exec('find abandoned runs', this.sql.selectAbandoned, [
      notOwner,
      createdBefore,
      limit,
    ]);
    return records.map(toRunRow);
  }

  /** Runs one statement on a pooled connection; driver failures name the operation. */
  async exec(operation: string, sql: string, params: unknown[]): Promise<QueryResult> {
    this.lifecycle.assertAlive(operation);
    const runner = this.dataSource.createQueryRunner();
    try {
      const result = await runner.query(sql, params, true);
      result.records ??= [];
      return result;
    } catch (error) {
      if (isDuplicateKey(error)) throw error;
      throw new StoreUnavailableError(operation, error);
    } finally {
      await runner.release();
    }
  }
}
