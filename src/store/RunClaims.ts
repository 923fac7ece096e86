import type { LeaseHolder } from '../ground/ProcessIdentity';
import {
  claimedFrom,
  claimParams,
  DUE_SQL,
  leaseSql,
  PRIOR_COLUMNS,
  type ClaimedRun,
} from './Leases';
import { toRunRow } from './rows';
import type { Database } from './connection/Database';

/** Who claims work, for how long, and which workflows it can run. */
export interface ClaimRequest {
  holder: LeaseHolder;
  /** The token of this claim, written on every run it takes. */
  token: string;
  limit: number;
  now: number;
  /** How long the leases last, from now on the server's clock. */
  leaseMs: number;
  workflows: string[];
  /** Only runs stored with one of these workflow versions (a rollout's old and new code). */
  versions?: string[];
}

/** A claim's statements and their parameters, as {@link RunClaims.claim} made them. */
interface Picking {
  readonly select: string;
  readonly dueParams: unknown[];
  readonly set: unknown[];
  readonly claimSet: string;
}

/**
 * What a worker may take: pending or due in the default queue (a named queue's runs start
 * through `NamedQueueClaims`, under its limits), or abandoned (parameters: now, holder process).
 */
function runnable(lapsedElsewhere: string): string {
  return `((queue_name IS NULL AND (status = 'pending' OR ${DUE_SQL})) OR ${lapsedElsewhere})`;
}

/**
 * Claims for workers the runs no queue limit holds back — pending in the default queue, due
 * (a timer, a backoff, a signal), or abandoned in any queue (their lease lapsed) — hands a
 * stopping run back, and reads the status of runs held here. Claims skip rows other workers hold locked
 * (`FOR UPDATE SKIP LOCKED` on MySQL/MariaDB and PostgreSQL; SQLite serializes writers).
 */
export class RunClaims {
  constructor(private readonly db: Database) {}

  /**
   * Claims up to `limit` runs, each at a new epoch under the request's token; returns them with
   * what each was before (queued, due, or a lapsed lease taken over).
   */
  async claim(request: ClaimRequest): Promise<ClaimedRun[]> {
    if (request.workflows.length === 0 || request.limit < 1) return [];
    const names = request.workflows.map(() => '?').join(', ');
    const lease = leaseSql(this.db.dialect);
    const set = claimParams(request.holder, request.token, request.leaseMs, request.now);
    const versions = request.versions ?? [];
    const versionFilter =
      versions.length > 0 ? ` AND version IN (${versions.map(() => '?').join(', ')})` : '';
    const dueParams = [
      ...request.workflows,
      ...versions,
      request.now,
      request.holder.process,
      request.limit,
    ];
    const select =
      `SELECT id, ${PRIOR_COLUMNS} FROM waymark_runs WHERE workflow IN (${names})${versionFilter} AND ${runnable(lease.lapsedElsewhere)} ` +
      'ORDER BY created_at LIMIT ?';
    const picking = { select, dueParams, set, claimSet: lease.claimSet };
    return this.db.dialect === 'mysql' ? this.pickThenClaim(picking) : this.claimPicked(picking);
  }

  /**
   * One statement: pick, claim and read back (SQLite >= 3.35 and PostgreSQL have RETURNING),
   * with the picked rows' state before the update. PostgreSQL: an UPDATE … FROM the locked
   * pick (one snapshot for the whole statement). SQLite, whose RETURNING cannot name another
   * table: the pick as a materialized CTE, read before any row changes.
   */
  private async claimPicked(p: Picking): Promise<ClaimedRun[]> {
    const postgres = this.db.dialect === 'postgres';
    const prior = (column: string): string =>
      `(SELECT p.${column} FROM picked p WHERE p.id = waymark_runs.id) AS ${column}`;
    const sql = postgres
      ? `UPDATE waymark_runs SET ${p.claimSet} FROM (${p.select} FOR UPDATE SKIP LOCKED) picked ` +
        'WHERE waymark_runs.id = picked.id ' +
        'RETURNING waymark_runs.*, picked.prior_status, picked.prior_since'
      : `WITH picked AS MATERIALIZED (${p.select}) ` +
        `UPDATE waymark_runs SET ${p.claimSet} WHERE id IN (SELECT id FROM picked) ` +
        `RETURNING *, ${prior('prior_status')}, ${prior('prior_since')}`;
    const params = postgres ? [...p.set, ...p.dueParams] : [...p.dueParams, ...p.set];
    const { records, raw } = await this.db.exec('claim runs', this.db.sql(sql), params);
    const rows = (records.length > 0 ? records : Array.isArray(raw) ? raw : []) as Array<
      Record<string, unknown>
    >;
    return rows.map((record) => ({ row: toRunRow(record), from: claimedFrom(record) }));
  }

  /** MySQL/MariaDB (no RETURNING): pick under row locks, claim, read back, in one transaction. */
  private pickThenClaim(p: Picking): Promise<ClaimedRun[]> {
    return this.db.transaction(
      'claim runs',
      async (tx) => {
        const found = await tx.exec('find due runs', `${p.select} FOR UPDATE SKIP LOCKED`, [
          ...p.dueParams,
        ]);
        const picked = found.records;
        if (picked.length === 0) return [];
        const ids = picked.map((r) => String(r.id));
        const marks = ids.map(() => '?').join(', ');
        await tx.exec(
          'claim runs',
          `UPDATE waymark_runs SET ${p.claimSet} WHERE id IN (${marks})`,
          [...p.set, ...ids],
        );
        const claimed = await tx.exec(
          'read claimed runs',
          `SELECT * FROM waymark_runs WHERE id IN (${marks})`,
          ids,
        );
        const before = new Map(picked.map((r) => [String(r.id), claimedFrom(r)]));
        return claimed.records.map((record) => {
          const row = toRunRow(record);
          return { row, from: before.get(row.id)! };
        });
      },
      // Lost to a claim on another Galera node: those runs are taken; the next poll looks
      // again at once, where a retry would wait out a growing backoff and starve this worker.
      { retry: true, lostRace: () => [] },
    );
  }

  /**
   * Hands a run this process is stopping back to the queue (`pending`, no owner), so
   * another worker continues it at once instead of after its lease lapses.
   */
  async release(runId: string, epoch: number, now: number): Promise<void> {
    await this.db.exec(
      `release run "${runId}"`,
      this.db.sql(
        "UPDATE waymark_runs SET status = 'pending', owner = NULL, lease_expires_at = NULL, lease_host = NULL, " +
          'lease_process = NULL, claim_token = NULL, updated_at = ? ' +
          "WHERE id = ? AND epoch = ? AND status = 'running'",
      ),
      [now, runId, epoch],
    );
  }

  /** The stored status of runs this process executes (to notice cancellations). */
  async statuses(
    runIds: string[],
  ): Promise<Array<{ id: string; status: string; epoch: number; error: string | null }>> {
    if (runIds.length === 0) return [];
    const { records } = await this.db.exec(
      'check active runs',
      this.db.sql(
        `SELECT id, status, epoch, error FROM waymark_runs WHERE id IN (${runIds.map(() => '?').join(', ')})`,
      ),
      runIds,
    );
    return records.map((r) => ({
      id: String(r.id),
      status: String(r.status),
      epoch: Number(r.epoch),
      error: typeof r.error === 'string' ? r.error : null,
    }));
  }
}
