import type { Database } from './connection/Database';

/** A run executing in a queue now. */
export interface QueuedRunView {
  readonly runId: string;
  readonly workflow: string;
  /** The worker holding it. */
  readonly owner: string | null;
  readonly partitionKey: string | null;
}

/** How a queue stands: runs waiting to start, waiting on a timer or signal, executing. */
export interface QueueStats {
  /** The queue's name; `''` is the default queue. */
  readonly name: string;
  readonly pending: number;
  readonly waiting: number;
  readonly running: number;
  /** Its limits as the workers that declared it recorded them (null: none recorded). */
  readonly limits: Record<string, unknown> | null;
  /** Up to 50 of its executing runs, longest-running first. */
  readonly executing: QueuedRunView[];
}

/** How a limiter stands: slots held now, and its stored pause. */
export interface LimiterStats {
  readonly name: string;
  readonly held: number;
  /** When its pause (after a 429) ends, epoch ms; null when not paused. */
  readonly pausedUntil: number | null;
}

const SHOWN_RUNS = 50;

/** Reads the depth and the executing runs of every queue, and how each limiter stands. */
export class FlowStats {
  constructor(private readonly db: Database) {}

  async queues(): Promise<QueueStats[]> {
    const counts = await this.rows(
      "SELECT COALESCE(queue_name, '') AS name, status, COUNT(*) AS n FROM waymark_runs " +
        "WHERE status IN ('pending', 'waiting', 'running') GROUP BY COALESCE(queue_name, ''), status",
    );
    const declared = await this.rows(
      "SELECT name, config FROM waymark_queues WHERE kind = 'queue'",
    );
    const byName = new Map<string, { pending: number; waiting: number; running: number }>();
    const entry = (name: string) => {
      let found = byName.get(name);
      if (!found) byName.set(name, (found = { pending: 0, waiting: 0, running: 0 }));
      return found;
    };
    for (const row of declared) entry(String(row.name));
    for (const row of counts) entry(String(row.name))[row.status as 'pending'] = Number(row.n);
    const limits = new Map(declared.map((row) => [String(row.name), parseConfig(row.config)]));
    const result: QueueStats[] = [];
    for (const [name, count] of [...byName].sort(([a], [b]) => a.localeCompare(b))) {
      const executing = (
        await this.rows(
          "SELECT id, workflow, owner, partition_key FROM waymark_runs WHERE status = 'running' AND " +
            `${name === '' ? 'queue_name IS NULL' : 'queue_name = ?'} ORDER BY updated_at LIMIT ${SHOWN_RUNS}`,
          name === '' ? [] : [name],
        )
      ).map((row) => ({
        runId: String(row.id),
        workflow: String(row.workflow),
        owner: typeof row.owner === 'string' ? row.owner : null,
        partitionKey: typeof row.partition_key === 'string' ? row.partition_key : null,
      }));
      result.push({ name, ...count, limits: limits.get(name) ?? null, executing });
    }
    return result;
  }

  async limiters(now: number): Promise<LimiterStats[]> {
    const rows = await this.rows(
      'SELECT q.name, q.paused_until, (SELECT COUNT(*) FROM waymark_limiter_slots s WHERE s.limiter = q.name ' +
        "AND s.released_at IS NULL AND s.expires_at > ?) AS held FROM waymark_queues q WHERE q.kind = 'limiter' ORDER BY q.name",
      [now],
    );
    return rows.map((row) => ({
      name: String(row.name),
      held: Number(row.held),
      pausedUntil:
        row.paused_until === null || Number(row.paused_until) <= now
          ? null
          : Number(row.paused_until),
    }));
  }

  private async rows(sql: string, params: unknown[] = []): Promise<Array<Record<string, unknown>>> {
    const { records } = await this.db.exec('read queue depths', this.db.sql(sql), params);
    return records;
  }
}

function parseConfig(value: unknown): Record<string, unknown> | null {
  if (typeof value !== 'string') return null;
  try {
    return JSON.parse(value) as Record<string, unknown>;
  } catch {
    return null;
  }
}
