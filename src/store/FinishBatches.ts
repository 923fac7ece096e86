import { LeaseLostError } from '../errors/LeaseLostError';
import type { Database } from './connection/Database';
import type { RunFinish } from './RunStore';
import { byRowCount, finishRunParams, statementsFor } from './statements';

/** One run's ending waiting for its commit: how it ended, when, and the epoch that fences it. */
export interface FencedFinish {
  readonly runId: string;
  readonly epoch: number;
  readonly finish: RunFinish;
  readonly now: number;
}

/** How one run's ending in a batch landed: stored, or refused with its own error. */
export type FinishLanding = PromiseSettledResult<void>;

/**
 * PostgreSQL: every run in one statement, each under its own epoch; the ids it returns
 * landed, a run it did not return had lost its fence (as the one-run update finds no row).
 */
const POSTGRES_FINISH_RUNS =
  'UPDATE waymark_runs r SET status = v.status, result = v.result, error = v.error, ' +
  'parked_reason = v.parked_reason, owner = NULL, lease_expires_at = NULL, ' +
  'updated_at = v.updated_at FROM unnest($1::varchar[], $2::integer[], $3::varchar[], ' +
  '$4::text[], $5::text[], $6::text[], $7::bigint[]) ' +
  'AS v(id, epoch, status, result, error, parked_reason, updated_at) ' +
  'WHERE r.id = v.id AND r.epoch = v.epoch RETURNING r.id';

/** SQLite: the one-run update, run once per run inside the batch's transaction. */
const SQLITE_FINISH_RUN = statementsFor('sqlite').finishRun;

/** MySQL/MariaDB: `count` runs in one update, each column chosen by the run's id. */
const mysqlFinishRuns = byRowCount((count) => {
  const byId = Array(count).fill('WHEN ? THEN ?').join(' ');
  const column = (name: string): string => `${name} = CASE id ${byId} END`;
  return (
    `UPDATE waymark_runs SET ${['status', 'result', 'error', 'parked_reason'].map(column).join(', ')}, ` +
    `owner = NULL, lease_expires_at = NULL, ${column('updated_at')} ` +
    `WHERE id IN (${Array(count).fill('?').join(', ')}) AND epoch = CASE id ${byId} END`
  );
});

/** The MySQL statement's parameters, in its order: five columns by id, the ids, the epochs. */
function mysqlFinishParams(finishes: readonly FencedFinish[]): unknown[] {
  const byId = (value: (f: FencedFinish) => unknown): unknown[] =>
    finishes.flatMap((f) => [f.runId, value(f)]);
  return [
    ...byId((f) => f.finish.status),
    ...byId((f) => f.finish.result),
    ...byId((f) => f.finish.error),
    ...byId((f) => f.finish.parkedReason),
    ...byId((f) => f.now),
    ...finishes.map((f) => f.runId),
    ...byId((f) => f.epoch),
  ];
}

/**
 * Stores many runs' endings in one commit — one statement on PostgreSQL and MySQL/MariaDB,
 * one transaction on SQLite — and says how each landed. A run whose epoch no longer holds it
 * fails alone with `LeaseLostError`, as its one-run update would; its neighbours land.
 */
export class FinishBatches {
  constructor(private readonly db: Database) {}

  async write(finishes: readonly FencedFinish[]): Promise<FinishLanding[]> {
    // Runs in one order, so two batches (or a batch and a lease renewal) lock them alike.
    const ordered = [...finishes].sort((a, b) => (a.runId < b.runId ? -1 : 1));
    const landed = await this.writeTogether(ordered);
    return finishes.map((f) =>
      landed.has(f.runId)
        ? { status: 'fulfilled', value: undefined }
        : { status: 'rejected', reason: new LeaseLostError(f.runId, f.epoch) },
    );
  }

  /** Stores `finishes` in one commit; returns the ids of the runs whose ending landed. */
  private async writeTogether(finishes: readonly FencedFinish[]): Promise<Set<string>> {
    const operation = `finish ${finishes.length} runs in one commit`;
    switch (this.db.dialect) {
      case 'postgres': {
        const { records } = await this.db.exec(operation, POSTGRES_FINISH_RUNS, [
          finishes.map((f) => f.runId),
          finishes.map((f) => f.epoch),
          finishes.map((f) => f.finish.status),
          finishes.map((f) => f.finish.result),
          finishes.map((f) => f.finish.error),
          finishes.map((f) => f.finish.parkedReason),
          finishes.map((f) => f.now),
        ]);
        return new Set(records.map((r) => String(r.id)));
      }
      case 'mysql': {
        const { affected } = await this.db.exec(
          operation,
          mysqlFinishRuns(finishes.length),
          mysqlFinishParams(finishes),
        );
        if (affected === finishes.length) return new Set(finishes.map((f) => f.runId));
        // Some run's fence failed, and MySQL counts rows, not names them. Epochs only grow:
        // a run still at its epoch was matched, so updated, by the statement that committed.
        return this.stillHeld(finishes);
      }
      case 'sqlite': {
        const results = await this.db.execTogether(
          operation,
          finishes.map((f) => [SQLITE_FINISH_RUN, finishRunParams(f)]),
        );
        return new Set(
          finishes
            .filter((_, i) => {
              const result = results[i];
              return !(result instanceof Error) && result?.affected === 1;
            })
            .map((f) => f.runId),
        );
      }
    }
  }

  /** MySQL: the runs of `finishes` their epoch still holds. */
  private async stillHeld(finishes: readonly FencedFinish[]): Promise<Set<string>> {
    const { records } = await this.db.exec(
      `check the leases of ${finishes.length} finished runs`,
      `SELECT id, epoch FROM waymark_runs WHERE id IN (${finishes.map(() => '?').join(', ')})`,
      finishes.map((f) => f.runId),
    );
    const epochs = new Map(records.map((r) => [String(r.id), Number(r.epoch)]));
    return new Set(finishes.filter((f) => epochs.get(f.runId) === f.epoch).map((f) => f.runId));
  }
}
