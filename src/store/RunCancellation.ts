import { InvalidRunStateError } from '../errors/InvalidRunStateError';
import { RunNotFoundError } from '../errors/RunNotFoundError';
import type { Lifecycle } from '../ground/Lifecycle';
import { assertRunId } from '../model/identifiers';
import type { Database } from './connection/Database';

const ACTIVE = "('pending', 'running', 'waiting', 'needs_attention')";

const CANCEL_SET =
  "status = 'cancelled', error = ?, epoch = epoch + 1, owner = NULL, lease_expires_at = NULL, " +
  'wake_at = NULL, parked_seq = NULL, parked_reason = NULL, updated_at = ?';

/** A run past a time limit: its deadline, or the time it had to start by. */
export interface OverdueRun {
  readonly id: string;
  readonly limit: 'deadline' | 'startBy';
  readonly at: number;
}

/**
 * Cancellation in the database: a run and, in the same transaction, every run under it
 * (child runs, their children) that has not ended; and which runs are past their deadline.
 * A process executing one of them notices the new epoch and stops at its next step boundary.
 */
export class RunCancellation {
  constructor(
    private readonly db: Database,
    private readonly lifecycle: Lifecycle,
  ) {}

  /** Cancels the run and its descendants; returns the ids cancelled, the run's first. */
  async cancel(runId: string, error: string, now: number): Promise<string[]> {
    assertRunId(runId, 'cancel(): runId');
    return this.transaction(`cancel run "${runId}"`, async (sql) => {
      const lock = this.db.dialect === 'sqlite' ? '' : ' FOR UPDATE';
      const [run] = (await sql(`SELECT status FROM waymark_runs WHERE id = ?${lock}`, [
        runId,
      ])) as Array<{ status: string }>;
      if (!run) throw new RunNotFoundError(runId);
      if (!ACTIVE.includes(`'${run.status}'`)) {
        throw new InvalidRunStateError(runId, run.status, 'cancel', 'it has already ended');
      }
      await sql(`UPDATE waymark_runs SET ${CANCEL_SET} WHERE id = ? AND status IN ${ACTIVE}`, [
        error,
        now,
        runId,
      ]);
      const cancelled = [runId];
      for (let parents = [runId]; parents.length > 0;) {
        const marks = parents.map(() => '?').join(', ');
        const children = (await sql(
          `SELECT id FROM waymark_runs WHERE parent_run_id IN (${marks}) AND status IN ${ACTIVE}`,
          parents,
        )) as Array<{ id: unknown }>;
        parents = children.map((c) => String(c.id));
        if (parents.length === 0) break;
        await sql(
          `UPDATE waymark_runs SET ${CANCEL_SET} WHERE id IN (${parents.map(() => '?').join(', ')}) ` +
            `AND status IN ${ACTIVE}`,
          [error, now, ...parents],
        );
        cancelled.push(...parents);
      }
      return cancelled;
    });
  }

  /**
   * Runs not ended past their deadline, and queued runs no worker started by their
   * `startBy` time (never claimed: epoch 1), at most `limit`.
   */
  async overdue(now: number, limit: number): Promise<OverdueRun[]> {
    const sql = this.db.sql(
      `SELECT id, deadline_at, start_by FROM waymark_runs WHERE (deadline_at < ? AND status IN ${ACTIVE}) ` +
        "OR (start_by < ? AND epoch = 1 AND status IN ('pending', 'waiting')) LIMIT ?",
    );
    const { records } = await this.db.exec('find overdue runs', sql, [now, now, limit]);
    return records.map((r) => {
      const deadline = r.deadline_at === null ? null : Number(r.deadline_at);
      const pastDeadline = deadline !== null && deadline < now;
      return {
        id: String(r.id),
        limit: pastDeadline ? 'deadline' : 'startBy',
        at: pastDeadline ? deadline : Number(r.start_by),
      };
    });
  }

  private async transaction<T>(operation: string, work: (sql: Sql) => Promise<T>): Promise<T> {
    this.lifecycle.assertOpen(operation);
    return this.db.transaction(
      operation,
      (_tx, manager) => work((text, params) => manager.query(this.db.sql(text), params)),
      { retry: true },
    );
  }
}

type Sql = (text: string, params: unknown[]) => Promise<unknown>;
