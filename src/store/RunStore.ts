import { LeaseLostError } from '../errors/LeaseLostError';
import type { Database } from './connection/Database';
import { isDuplicateKey, isMissingReference } from './connection/Dialect';
import {
  toAttemptRow,
  toRunRow,
  toStepRow,
  type AttemptRow,
  type RunRow,
  type StepRow,
} from './rows';
import type { RunStatus } from '../model/RunStatus';
import {
  finishRunParams,
  runInsertParams,
  stepInsertParams,
  statementsFor,
  type Statements,
} from './statements';
import { isPending, type DirectResult } from './connection/DirectDriver';

/** A run's stored history: step outcomes and failed attempts, each in sequence order. */
export interface RunHistory {
  steps: StepRow[];
  attempts: AttemptRow[];
}

/** The terminal or parked state a run is finished with. */
export interface RunFinish {
  status: Extract<RunStatus, 'completed' | 'failed' | 'needs_attention'>;
  result: string | null;
  error: string | null;
  /** For `needs_attention`: why, in plain text (see `reasonText`); null otherwise. */
  parkedReason: string | null;
}

/** A checkpoint's answer when its row went in at once (SQLite): one promise for all of them. */
const INSERTED: Promise<'inserted'> = Promise.resolve('inserted');

/** Whether `answer` is of a checkpoint whose row went in before the call returned. */
export const landedAtOnce = (answer: Promise<'inserted' | 'duplicate'>): boolean =>
  answer === INSERTED;

/**
 * The one place run and step rows are read and written. Every write of a run's progress
 * is conditional on the run's epoch, so a process that lost the run writes nothing.
 * Each method is one round trip; a dead runtime's store refuses all work. Bound to a
 * transaction's {@link Database}, its writes are that transaction's.
 */
export class RunStore {
  private readonly sql: Statements;

  constructor(private readonly db: Database) {
    this.sql = statementsFor(db.dialect);
  }

  /**
   * Inserts a new run, leased to its holder for `leaseMs` from now on the server's clock (null:
   * held by no one); false when a run with that id already exists.
   */
  async insertRun(row: RunRow, leaseMs: number | null): Promise<boolean> {
    try {
      await this.exec(`create run "${row.id}"`, this.sql.insertRun, runInsertParams(row, leaseMs));
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

  /** The run's whole history (step outcomes and failed attempts), in one query. */
  async loadHistory(runId: string): Promise<RunHistory> {
    const { records } = await this.exec(`read history of run "${runId}"`, this.sql.selectHistory, [
      runId,
      runId,
    ]);
    const history: RunHistory = { steps: [], attempts: [] };
    for (const raw of records) {
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
  insertStep(step: StepRow, epoch: number): Promise<'inserted' | 'duplicate'> {
    // Chained rather than awaited: this is every checkpoint's one write. On SQLite it lands
    // at once, and its answer is a promise made once.
    const written = this.db.execNow(
      () => `record step #${step.seq} of run "${step.runId}"`,
      this.sql.insertStep,
      stepInsertParams(step, epoch),
    );
    if (!isPending(written)) {
      return written.affected === 1
        ? INSERTED
        : Promise.reject(new LeaseLostError(step.runId, epoch));
    }
    return written.then(
      (result) => {
        if (result.affected !== 1) throw new LeaseLostError(step.runId, epoch);
        return 'inserted' as const;
      },
      (error: unknown) => {
        if (isMissingReference(error)) throw new LeaseLostError(step.runId, epoch);
        if (!isDuplicateKey(error)) throw error;
        if (this.db.dialect !== 'mysql') return 'duplicate' as const;
        // MySQL checks the key before the fence: a process that lost the run must not take
        // the new holder's outcome for its own and run on to its next step.
        return this.holds(step.runId, epoch).then((held) => {
          if (!held) throw new LeaseLostError(step.runId, epoch);
          return 'duplicate' as const;
        });
      },
    );
  }

  /**
   * The step stored at `seq` of a run `epoch` still holds — one this claim wrote, whose
   * COMMIT landed though its answer was lost — or undefined when none is stored. Throws
   * `LeaseLostError` when another claim holds the run now.
   */
  async ownStep(runId: string, seq: number, epoch: number): Promise<StepRow | undefined> {
    const step = await this.loadStep(runId, seq);
    if (!(await this.holds(runId, epoch))) throw new LeaseLostError(runId, epoch);
    return step;
  }

  /** Whether `epoch` still holds the run. */
  private async holds(runId: string, epoch: number): Promise<boolean> {
    const { records } = await this.exec(`check the lease of run "${runId}"`, this.sql.selectHeld, [
      runId,
      epoch,
    ]);
    return records.length > 0;
  }

  /** Stores the run's outcome and releases it; the one write that ends a run. */
  async finishRun(runId: string, epoch: number, finish: RunFinish, now: number): Promise<void> {
    const { affected } = await this.exec(
      `finish run "${runId}"`,
      this.sql.finishRun,
      finishRunParams({ runId, epoch, finish, now }),
    );
    if (affected !== 1) throw new LeaseLostError(runId, epoch);
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
        attempt.idempotencyKey ?? null,
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
    reason: string,
    now: number,
  ): Promise<void> {
    const { affected } = await this.exec(`park run "${runId}"`, this.sql.parkRun, [
      error,
      reason,
      seq,
      now,
      runId,
      epoch,
    ]);
    if (affected !== 1) throw new LeaseLostError(runId, epoch);
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

  /** A write whose retry after a lost connection may find its own first attempt stored. */
  private async execAllowingDuplicate(
    operation: string,
    sql: string,
    params: unknown[],
  ): Promise<DirectResult> {
    try {
      return await this.exec(operation, sql, params);
    } catch (error) {
      if (isDuplicateKey(error)) return { raw: undefined, records: [], affected: 1 };
      throw error;
    }
  }

  /** Runs one statement (retried through outages); driver failures name the operation. */
  private exec(operation: string, sql: string, params: unknown[]): Promise<DirectResult> {
    return this.db.exec(operation, sql, params);
  }
}
