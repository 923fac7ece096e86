import type { LeaseHolder } from '../ground/ProcessIdentity';
import type { ResolvedQueue } from '../policies/FlowLimits';
import {
  claimedFrom,
  claimParams,
  leaseSql,
  PRIOR_COLUMNS,
  type ClaimedFrom,
  type ClaimedRun,
} from './Leases';
import { insertIgnoring, FlowLocks } from './FlowLocks';
import { toRunRow } from './rows';
import type { Database } from './connection/Database';
import { runColumns } from './statements';

/** One worker's claim on a named queue. */
export interface QueueClaimRequest {
  readonly queue: ResolvedQueue;
  readonly holder: LeaseHolder;
  /** The token of this claim, written on every run it takes. */
  readonly token: string;
  /** Most runs this worker takes now (its free slots, and the queue's per-worker limit). */
  readonly limit: number;
  readonly now: number;
  /** How long the leases last, from now on the server's clock. */
  readonly leaseMs: number;
  readonly workflows: readonly string[];
  readonly versions?: readonly string[];
}

/** Waiting to start in a queue, or due again after a wait (parameters: queue, now). */
const READY = "queue_name = ? AND (status = 'pending' OR (status = 'waiting' AND wake_at <= ?))";
/** No partition limit: a number no count reaches. */
const UNBOUNDED = 2_147_483_647;

/**
 * Claims from named queues (`runtime.queue`), enforcing their limits through the database:
 * each claim takes the queue's row lock ({@link FlowLocks}), counts the runs executing
 * (in all, and per partition key) and the starts within the rate window, then claims at most
 * what is left — partition keys taking turns, then priority, then age — all in one
 * transaction, so no two workers can both take the last slot.
 */
export class NamedQueueClaims {
  constructor(private readonly db: Database) {}

  /** Claims what the queue has room for; returns the runs with what each was before. */
  async claim(request: QueueClaimRequest): Promise<ClaimedRun[]> {
    if (request.limit < 1 || request.workflows.length === 0) return [];
    return this.db.transaction(
      `claim runs of queue "${request.queue.name}"`,
      async (tx) => {
        await new FlowLocks(tx).lock('queue', request.queue.name, request.now);
        const room = await this.room(tx, request);
        if (room < 1) return [];
        const picked = await this.candidates(tx, request, room);
        if (picked.length === 0) return [];
        const ids = picked.map((p) => p.id);
        if (request.queue.partitionBy) await this.takeTurns(tx, request, picked);
        const marks = ids.map(() => '?').join(', ');
        const { holder, token, leaseMs, now } = request;
        await tx.exec(
          'claim queued runs',
          this.db.sql(
            `UPDATE waymark_runs SET ${leaseSql(tx.dialect).claimSet}, started_at = COALESCE(started_at, ?) ` +
              `WHERE id IN (${marks}) AND status IN ('pending', 'waiting')`,
          ),
          [...claimParams(holder, token, leaseMs, now), now, ...ids],
        );
        const { records } = await tx.exec(
          'read claimed runs',
          this.db.sql(
            `SELECT ${runColumns(tx.dialect)} FROM waymark_runs WHERE id IN (${marks}) AND claim_token = ?`,
          ),
          [...ids, token],
        );
        // In the order they were picked: the worker starts them in turn order.
        const rank = new Map(ids.map((id, i) => [id, i]));
        const before = new Map(picked.map((p) => [p.id, p.from]));
        return records
          .map(toRunRow)
          .sort((a, b) => rank.get(a.id)! - rank.get(b.id)!)
          .map((row) => ({ row, from: before.get(row.id)! }));
      },
      // Lost to a claim on another Galera node: those runs are taken; the next poll looks
      // again at once, where a retry would wait out a growing backoff and starve this worker.
      { retry: true, lostRace: () => [] },
    );
  }

  /** Records the queue's limits on its row, for operators (`waymark queues`, the console). */
  async record(queue: ResolvedQueue, now: number): Promise<void> {
    const limits = {
      concurrency: queue.concurrency,
      workerConcurrency: queue.workerConcurrency,
      rateLimit: queue.rateLimit,
      partitioned: queue.partitionBy !== undefined,
      perKeyConcurrency: queue.perKeyConcurrency,
    };
    await new FlowLocks(this.db).ensure('queue', queue.name, JSON.stringify(limits), now);
  }

  /** How many runs the queue may start now: its concurrency and rate limits, and the request's. */
  private async room(tx: Database, request: QueueClaimRequest): Promise<number> {
    const { queue, now } = request;
    let room = request.limit;
    if (queue.concurrency !== undefined) {
      const running = await this.count(
        tx,
        "queue_name = ? AND status = 'running'",
        [queue.name],
        'count running runs',
      );
      room = Math.min(room, queue.concurrency - running);
    }
    if (queue.rateLimit !== undefined && room > 0) {
      const started = await this.count(
        tx,
        'queue_name = ? AND started_at > ?',
        [queue.name, now - queue.rateLimit.periodMs],
        'count recent starts',
      );
      room = Math.min(room, queue.rateLimit.limit - started);
    }
    return room;
  }

  /**
   * Runs to claim, at most `room`: each partition key's runs numbered in priority and age
   * order, the key's executing runs counted first, so keys take turns (the first run of every
   * key before the second of any) and a key at its `perKeyConcurrency` gets none.
   */
  private async candidates(
    tx: Database,
    request: QueueClaimRequest,
    room: number,
  ): Promise<Array<{ id: string; key: string; from: ClaimedFrom }>> {
    const { queue, now, workflows, versions = [] } = request;
    const names = workflows.map(() => '?').join(', ');
    const versionFilter =
      versions.length > 0 ? ` AND version IN (${versions.map(() => '?').join(', ')})` : '';
    const ready =
      `SELECT id, COALESCE(partition_key, '') AS pkey, priority, created_at, ${PRIOR_COLUMNS}, ` +
      "ROW_NUMBER() OVER (PARTITION BY COALESCE(partition_key, '') ORDER BY priority DESC, created_at, id) AS rn " +
      `FROM waymark_runs WHERE ${READY} AND workflow IN (${names})${versionFilter}`;
    const busy =
      "SELECT COALESCE(partition_key, '') AS pkey, COUNT(*) AS n FROM waymark_runs " +
      "WHERE queue_name = ? AND status = 'running' GROUP BY COALESCE(partition_key, '')";
    const turn = 'c.rn + COALESCE(b.n, 0)';
    const sql =
      `SELECT c.id, c.pkey, c.prior_status, c.prior_since FROM (${ready}) c LEFT JOIN (${busy}) b ON b.pkey = c.pkey ` +
      'LEFT JOIN waymark_queue_turns t ON t.queue_name = ? AND t.partition_key = c.pkey ' +
      `WHERE ${turn} <= ? ORDER BY ${turn}, COALESCE(t.last_started_at, 0), c.priority DESC, c.created_at, c.id LIMIT ?`;
    const { records } = await tx.exec('find queued runs', this.db.sql(sql), [
      queue.name,
      now,
      ...workflows,
      ...versions,
      queue.name,
      queue.name,
      queue.perKeyConcurrency ?? UNBOUNDED,
      room,
    ]);
    return records.map((r) => ({
      id: String(r.id),
      key: String(r.pkey),
      from: claimedFrom(r),
    }));
  }

  /** Records when each key last had a run started: among equals, the key that waited longest goes next. */
  private async takeTurns(
    tx: Database,
    request: QueueClaimRequest,
    picked: Array<{ key: string }>,
  ): Promise<void> {
    const { queue, now } = request;
    for (const key of new Set(picked.map((p) => p.key))) {
      const { affected } = await tx.exec(
        'record partition turn',
        this.db.sql(
          'UPDATE waymark_queue_turns SET last_started_at = ? WHERE queue_name = ? AND partition_key = ?',
        ),
        [now, queue.name, key],
      );
      if ((affected ?? 0) > 0) continue;
      await tx.exec(
        'record partition turn',
        this.db.sql(
          insertIgnoring(
            tx.dialect,
            'INSERT INTO waymark_queue_turns (queue_name, partition_key, last_started_at) VALUES (?, ?, ?)',
          ),
        ),
        [queue.name, key, now],
      );
    }
  }

  private async count(
    tx: Database,
    where: string,
    params: unknown[],
    what: string,
  ): Promise<number> {
    const { records } = await tx.exec(
      what,
      this.db.sql(`SELECT COUNT(*) AS n FROM waymark_runs WHERE ${where}`),
      params,
    );
    return Number((records[0] as { n?: unknown } | undefined)?.n ?? 0);
  }
}
