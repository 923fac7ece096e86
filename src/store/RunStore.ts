import type { DataSource, EntityManager, QueryResult } from 'typeorm';
import { LeaseLostError } from '../errors/LeaseLostError';
import { isDuplicateKey, type DialectName } from './Dialect';
import {
  toAttemptRow,
  toRunRow,
  toStepRow,
  type AttemptRow,
  type RunRow,
  type StepRow,
} from './rows';
import type { RunStatus } from './RunStatus';
import { statementsFor, type Statements } from './statements';
import type { StoreConnection } from './StoreConnection';

/** A run's stored history: step outcomes and failed attempts, each in sequence order. */
export interface RunHistory {
  steps: StepRow[];
  attempts: AttemptRow[];
}

/** A global idempotency key: which run's step holds it, and its result once completed. */
export interface KeyRow {
  key: string;
  runId: string;
  seq: number;
  status: 'started' | 'completed';
  output: string | null;
  updatedAt: number;
}

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

  constructor(private readonly db: StoreConnection) {
    this.dialect = db.dialect;
    this.sql = statementsFor(this.dialect);
  }

  /** The TypeORM DataSource runs are stored in. */
  get dataSource(): DataSource {
    return this.db.dataSource;
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

  /** The run's whole history (step outcomes and failed attempts), in one query. */
  async loadHistory(runId: string): Promise<RunHistory> {
    const { records } = await this.exec(`read history of run "${runId}"`, this.sql.selectHistory, [
      runId,
      runId,
    ]);
    const history: RunHistory = { steps: [], attempts: [] };
    for (const raw of records as Array<Record<string, unknown>>) {
      if (raw.kind === 'step') history.steps.push(toStepRow(runId, raw));
      else history.attempts.push(toAttemptRow(runId, raw));
    }
    return history;
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

  /**
   * Extends the leases of the runs `owner` executes now — only those: a run claimed but
   * never started here (a claim retried through an outage) must lapse for others to take.
   */
  async renewLeases(
    owner: string,
    runIds: string[],
    leaseUntil: number,
    now: number,
  ): Promise<void> {
    if (runIds.length === 0) return;
    await this.exec('renew run leases', this.sql.renewLeases(runIds.length), [
      leaseUntil,
      now,
      owner,
      ...runIds,
    ]);
  }

  /** Records a failed attempt (or a budget reset) of the step at `attempt.seq`. */
  async insertAttempt(attempt: AttemptRow, epoch: number): Promise<void> {
    const { affected } = await this.execAllowingDuplicate(
      `record attempt ${attempt.attempt} of step #${attempt.seq} of run "${attempt.runId}"`,
      this.sql.insertAttempt,
      [
        attempt.seq,
        attempt.attempt,
        attempt.name,
        attempt.status,
        attempt.error,
        attempt.failedAt,
        attempt.nextAt,
        attempt.runId,
        epoch,
      ],
    );
    if (affected !== 1) throw new LeaseLostError(attempt.runId, epoch);
  }

  /** Releases the run to `waiting` until `wakeAt`; any process may resume it then. */
  async suspendRun(
    runId: string,
    epoch: number,
    wakeAt: number | null,
    waitingFor: string,
    now: number,
  ): Promise<void> {
    const { affected } = await this.exec(`suspend run "${runId}"`, this.sql.suspendRun, [
      wakeAt,
      waitingFor,
      now,
      runId,
      epoch,
    ]);
    if (affected !== 1) throw new LeaseLostError(runId, epoch);
  }

  /** Parks the run in `needs_attention` at step `seq` for an operator. */
  async parkRun(
    runId: string,
    epoch: number,
    seq: number,
    error: string,
    now: number,
  ): Promise<void> {
    const { affected } = await this.exec(`park run "${runId}"`, this.sql.parkRun, [
      error,
      seq,
      now,
      runId,
      epoch,
    ]);
    if (affected !== 1) throw new LeaseLostError(runId, epoch);
  }

  /**
   * Runs to resume: `running` under a lapsed lease or under `owner` (this worker id, from a
   * previous process), and `waiting` runs due by `now`.
   */
  async findRecoverable(owner: string, now: number, limit: number): Promise<RunRow[]> {
    const { records } = await this.exec('find runs to recover', this.sql.selectRecoverable, [
      now,
      owner,
      'waiting',
      now,
      limit,
    ]);
    return records.map(toRunRow);
  }

  /** Records how an at-most-once step ended, over its intent marker. */
  async completeIntent(step: StepRow, epoch: number): Promise<void> {
    const { affected } = await this.exec(
      `record step #${step.seq} of run "${step.runId}"`,
      this.sql.completeIntent,
      [
        step.status,
        step.output,
        step.attempts,
        step.finishedAt,
        step.runId,
        step.seq,
        step.runId,
        epoch,
      ],
    );
    if (affected === 1) return;
    // Retried after a lost connection: the first attempt may have written it.
    const stored = await this.loadStep(step.runId, step.seq);
    if (stored?.status === step.status && stored.output === step.output) return;
    throw new LeaseLostError(step.runId, epoch);
  }

  /** Takes a global idempotency key for `runId`/`seq`; false when someone holds it. */
  async insertKey(key: string, runId: string, seq: number, now: number): Promise<boolean> {
    try {
      await this.exec(`claim idempotency key "${key}"`, this.sql.insertKey, [
        key,
        runId,
        seq,
        now,
        now,
      ]);
      return true;
    } catch (error) {
      if (isDuplicateKey(error)) return false;
      throw error;
    }
  }

  async loadKey(key: string): Promise<KeyRow | undefined> {
    const { records } = await this.exec(`read idempotency key "${key}"`, this.sql.selectKey, [key]);
    const raw = records[0] as Record<string, unknown> | undefined;
    if (!raw) return undefined;
    return {
      key: String(raw.idempotency_key),
      runId: String(raw.run_id),
      seq: Number(raw.seq),
      status: String(raw.status) as KeyRow['status'],
      output: typeof raw.output === 'string' ? raw.output : null,
      updatedAt: Number(raw.updated_at),
    };
  }

  /** Moves a key from a run that can no longer finish with it; false when it moved on. */
  async takeOverKey(held: KeyRow, runId: string, seq: number, now: number): Promise<boolean> {
    const { affected } = await this.exec(
      `take over idempotency key "${held.key}"`,
      this.sql.takeOverKey,
      [runId, seq, now, held.key, held.runId, held.seq],
    );
    return affected === 1;
  }

  async completeKey(
    key: string,
    runId: string,
    seq: number,
    output: string,
    now: number,
  ): Promise<void> {
    await this.exec(`complete idempotency key "${key}"`, this.sql.completeKey, [
      output,
      now,
      key,
      runId,
      seq,
    ]);
  }

  async releaseKey(key: string, runId: string, seq: number): Promise<void> {
    await this.exec(`release idempotency key "${key}"`, this.sql.releaseKey, [key, runId, seq]);
  }

  /**
   * Runs `work` in one database transaction, with a store bound to it (and the
   * transaction's EntityManager, for a transactional step's own writes).
   */
  async transaction<T>(
    operation: string,
    work: (tx: RunStore, manager: EntityManager) => Promise<T>,
    options: { retry?: boolean; userWork?: boolean } = {},
  ): Promise<T> {
    return this.db.transaction(
      operation,
      (tx, manager) => work(new RunStore(tx), manager),
      options,
    );
  }

  /** A write whose retry after a lost connection may find its own first attempt stored. */
  private async execAllowingDuplicate(
    operation: string,
    sql: string,
    params: unknown[],
  ): Promise<QueryResult> {
    try {
      return await this.exec(operation, sql, params);
    } catch (error) {
      if (isDuplicateKey(error)) return { raw: undefined, records: [], affected: 1 };
      throw error;
    }
  }

  /** Runs one statement (retried through outages); driver failures name the operation. */
  exec(operation: string, sql: string, params: unknown[]): Promise<QueryResult> {
    return this.db.exec(operation, sql, params);
  }
}
