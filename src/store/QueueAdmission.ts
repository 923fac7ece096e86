import { isDuplicateKey } from './connection/Dialect';
import type { RunRow } from './rows';
import type { Database } from './connection/Database';
import { INSERTED_RUN_COLUMNS, runInsertParams } from './statements';

/** Where a new run waits: its named queue (null: the default queue) and its place there. */
export interface QueuePlace {
  readonly queue: string | null;
  readonly partitionKey: string | null;
  readonly priority: number;
  /** At most one queued or running run per key (in this queue). */
  readonly dedupe: string | undefined;
}

/** The default queue: no name, no partition key, no priority, no dedupe key. */
export const DEFAULT_QUEUE_PLACE: QueuePlace = {
  queue: null,
  partitionKey: null,
  priority: 0,
  dedupe: undefined,
};

/** What recording a queued run did. */
export type Enqueued =
  | { readonly kind: 'inserted' }
  | { readonly kind: 'exists' }
  | { readonly kind: 'deduplicated'; readonly runId: string };

const INSERTED_COLUMN_COUNT = INSERTED_RUN_COLUMNS.split(',').length;
const ACTIVE = "('pending', 'running', 'waiting')";
const DEDUPE_TRIES = 3;

/**
 * Admits new runs to a queue: each is stored `pending` there. With a dedupe key the key's row and the run are written
 * in one transaction: a key held by a run still queued or running returns that run instead; a
 * key whose run ended passes to the new run.
 */
export class QueueAdmission {
  constructor(private readonly db: Database) {}

  async enqueue(row: RunRow, place: QueuePlace): Promise<Enqueued> {
    if (place.dedupe === undefined) {
      return (await this.insert(this.db, row, place)) ? { kind: 'inserted' } : { kind: 'exists' };
    }
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.db.transaction(`queue run "${row.id}"`, (tx) =>
          this.withKey(tx, row, place, place.dedupe!),
        );
      } catch (error) {
        // Another start took the same new key between our read and insert: look again.
        if (!isDuplicateKey(error) || attempt >= DEDUPE_TRIES) throw error;
      }
    }
  }

  private async withKey(
    tx: Database,
    row: RunRow,
    place: QueuePlace,
    key: string,
  ): Promise<Enqueued> {
    const queue = place.queue ?? '';
    const lock = tx.dialect === 'sqlite' ? '' : ' FOR UPDATE';
    const { records } = await tx.exec(
      `read dedupe key "${key}"`,
      this.db.sql(
        'SELECT run_id, (SELECT status FROM waymark_runs r WHERE r.id = k.run_id) AS status ' +
          `FROM waymark_dedupe_keys k WHERE k.queue_name = ? AND k.dedupe_key = ?${lock}`,
      ),
      [queue, key],
    );
    const holder = records[0] as { run_id: unknown; status: unknown } | undefined;
    if (
      holder &&
      String(holder.run_id) !== row.id &&
      ACTIVE.includes(`'${String(holder.status)}'`)
    ) {
      return { kind: 'deduplicated', runId: String(holder.run_id) };
    }
    if (!(await this.insertOrFind(tx, row, place))) return { kind: 'exists' };
    if (holder) {
      await tx.exec(
        `pass dedupe key "${key}"`,
        this.db.sql(
          'UPDATE waymark_dedupe_keys SET run_id = ?, created_at = ? WHERE queue_name = ? AND dedupe_key = ?',
        ),
        [row.id, row.createdAt, queue, key],
      );
    } else {
      await tx.exec(
        `take dedupe key "${key}"`,
        this.db.sql(
          'INSERT INTO waymark_dedupe_keys (queue_name, dedupe_key, run_id, created_at) VALUES (?, ?, ?, ?)',
        ),
        [queue, key, row.id, row.createdAt],
      );
    }
    return { kind: 'inserted' };
  }

  /** Inserts the run unless a run with its id exists (checked first: a failed insert ends a PostgreSQL transaction). */
  private async insertOrFind(tx: Database, row: RunRow, place: QueuePlace): Promise<boolean> {
    const { records } = await tx.exec(
      `read run "${row.id}"`,
      this.db.sql('SELECT id FROM waymark_runs WHERE id = ?'),
      [row.id],
    );
    if (records.length > 0) return false;
    return this.insert(tx, row, place);
  }

  private async insert(db: Database, row: RunRow, place: QueuePlace): Promise<boolean> {
    const values = Array(INSERTED_COLUMN_COUNT + 3)
      .fill('?')
      .join(', ');
    try {
      await db.exec(
        `queue run "${row.id}"`,
        this.db.sql(
          `INSERT INTO waymark_runs (${INSERTED_RUN_COLUMNS}, queue_name, partition_key, priority) VALUES (${values})`,
        ),
        [...runInsertParams(row, null), place.queue, place.partitionKey, place.priority],
      );
      return true;
    } catch (error) {
      if (isDuplicateKey(error) && db === this.db) return false;
      throw error;
    }
  }
}
