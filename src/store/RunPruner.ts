import { NamedLocks } from './NamedLocks';
import type { Database } from './connection/Database';

/** Which ended runs to delete. */
export interface PruneRequest {
  /** Runs that ended (last changed) before this time, epoch ms. */
  readonly before: number;
  /** Ended statuses only: `completed`, `failed`, `cancelled`. */
  readonly statuses: readonly string[];
  /** Only runs of these workflows; default all. */
  readonly workflows?: readonly string[];
  /** Runs deleted per transaction. */
  readonly batchSize: number;
}

/** What a prune did: how many runs it deleted, or that another sweeper was at work. */
export interface PruneResult {
  readonly deleted: number;
  /** True when another process held the sweeper lease: this call deleted nothing. */
  readonly busy: boolean;
}

const LOCK = 'prune';
const LOCK_MS = 60_000;

/**
 * Deletes ended runs and their history in batches, one transaction per batch, under the
 * `prune` lease so that one sweeper works at a time however many workers and CLIs ask.
 */
export class RunPruner {
  private readonly locks: NamedLocks;

  constructor(
    private readonly db: Database,
    private readonly holder: string,
  ) {
    this.locks = new NamedLocks(db);
  }

  async prune(request: PruneRequest): Promise<PruneResult> {
    if (!(await this.locks.acquire(LOCK, this.holder, LOCK_MS))) {
      return { deleted: 0, busy: true };
    }
    let deleted = 0;
    try {
      for (;;) {
        const batch = await this.deleteBatch(request);
        deleted += batch;
        if (batch < request.batchSize) break;
        await this.locks.acquire(LOCK, this.holder, LOCK_MS);
      }
    } finally {
      await this.locks.release(LOCK, this.holder);
    }
    return { deleted, busy: false };
  }

  private deleteBatch(request: PruneRequest): Promise<number> {
    const list = (n: number) => Array(n).fill('?').join(', ');
    const workflows = request.workflows ?? [];
    const byWorkflow = workflows.length > 0 ? ` AND workflow IN (${list(workflows.length)})` : '';
    return this.db.transaction('prune ended runs', async (tx) => {
      const { records } = await tx.exec(
        'find runs to prune',
        tx.sql(
          `SELECT id FROM waymark_runs WHERE status IN (${list(request.statuses.length)}) ` +
            `AND updated_at < ?${byWorkflow} ORDER BY updated_at LIMIT ?`,
        ),
        [...request.statuses, request.before, ...workflows, request.batchSize],
      );
      const ids = (records as Array<{ id: unknown }>).map((r) => String(r.id));
      if (ids.length === 0) return 0;
      for (const [table, column] of [
        ['waymark_steps', 'run_id'],
        ['waymark_attempts', 'run_id'],
        ['waymark_signals', 'run_id'],
        ['waymark_stream_chunks', 'run_id'],
        ['waymark_dedupe_keys', 'run_id'],
        ['waymark_runs', 'id'],
      ]) {
        await tx.exec(
          `prune ${table}`,
          tx.sql(`DELETE FROM ${table} WHERE ${column} IN (${list(ids.length)})`),
          ids,
        );
      }
      return ids.length;
    });
  }
}
