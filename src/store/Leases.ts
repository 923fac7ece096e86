import { holderIsAlive, type LeaseHolder } from '../ground/ProcessIdentity';
import type { DialectName } from './connection/Dialect';
import { toRunRow, type RunRow } from './rows';
import type { Database } from './connection/Database';
import type { RunStore } from './RunStore';
import { serverNowSql, serverTimeAfterSql } from './serverClock';
import { runColumns } from './statements';

/** What a run's lease says about who holds it. */
export type LeaseView = Pick<
  RunRow,
  'status' | 'owner' | 'leaseExpiresAt' | 'leaseExpired' | 'leaseHost' | 'leaseProcess'
>;

/** One claim of one run: the epoch every write of its execution is fenced by, and its token. */
export interface ClaimToken {
  readonly runId: string;
  readonly epoch: number;
  readonly token: string;
}

/**
 * The one definition of "this `running` run may be taken over" by `self`: its lease expired
 * by the database server's clock (`leaseExpired`, computed in SQL as the row was read: no
 * worker's own clock decides); or its holder is gone ({@link holderGone}).
 */
export function leaseLapsed(row: LeaseView, self: LeaseHolder): boolean {
  if (row.status !== 'running') return false;
  if (row.leaseExpiresAt === null || row.leaseExpired) return true;
  return holderGone(row, self);
}

/**
 * Whether the holder of a `running` run is gone, whatever its lease says: held on this host by
 * a process (or, in this process, a runtime) that no longer exists; or held under `self`'s
 * worker id by a process other than `self` — a previous life of this worker (a restart under
 * the same `workerId`).
 */
export function holderGone(row: LeaseView, self: LeaseHolder): boolean {
  if (row.status !== 'running' || row.leaseProcess === self.process) return false;
  if (row.leaseHost === self.host && row.leaseProcess !== null) {
    return !holderIsAlive(row.leaseProcess);
  }
  return row.owner === self.owner;
}

/** The SQL of leases in one dialect, judged by the server's clock (see {@link leaseLapsed}). */
export interface LeaseSql {
  /** A lapsed lease, as far as SQL can tell (no parameters). */
  readonly lapsed: string;
  /**
   * A lapsed lease held by another runtime (one parameter: this runtime's holder process): a
   * runtime whose own lease ran late (a stalled event loop) does not take its runs from itself.
   */
  readonly lapsedElsewhere: string;
  /**
   * The columns a claim sets: running, held by a holder under a new epoch and token, leased
   * for a while on the server's clock (parameters: {@link claimParams}).
   */
  readonly claimSet: string;
}

/** {@link LeaseSql} for `dialect`. */
export function leaseSql(dialect: DialectName): LeaseSql {
  const now = serverNowSql(dialect);
  const lapsed = `(status = 'running' AND lease_expires_at < ${now})`;
  return {
    lapsed,
    lapsedElsewhere: `(${lapsed} AND (lease_process IS NULL OR lease_process <> ?))`,
    claimSet:
      "status = 'running', owner = ?, lease_host = ?, lease_process = ?, claim_token = ?, " +
      `epoch = epoch + 1, lease_expires_at = ${serverTimeAfterSql(dialect)}, wake_at = NULL, ` +
      'waiting_for = NULL, updated_at = ?',
  };
}

/**
 * What a claimed run was just before the claim: `pending` (queued), `waiting` (due: a timer,
 * a backoff, a signal, a delayed start) or `running` (its lease lapsed: a take-over), and since
 * when it was ready to run by the runtimes' clocks (queued at, or due at; null for a take-over,
 * whose lapse is judged by the server's clock).
 */
export interface ClaimedFrom {
  readonly status: 'pending' | 'waiting' | 'running';
  readonly readySince: number | null;
}

/** A run a claim took, as the claim left its row, and what it was before. */
export interface ClaimedRun {
  readonly row: RunRow;
  readonly from: ClaimedFrom;
}

/** The columns `prior_status` and `prior_since` a claim reads before it updates (see {@link ClaimedFrom}). */
export const PRIOR_COLUMNS =
  'status AS prior_status, ' +
  "CASE status WHEN 'pending' THEN updated_at WHEN 'waiting' THEN wake_at ELSE NULL END AS prior_since";

/** {@link ClaimedFrom} from a record holding {@link PRIOR_COLUMNS}. */
export function claimedFrom(record: Record<string, unknown>): ClaimedFrom {
  const status = String(record.prior_status) as ClaimedFrom['status'];
  const since = record.prior_since;
  return { status, readySince: since === null || since === undefined ? null : Number(since) };
}

/** Runs `running` on this host or under this worker id (parameters: host, owner). */
export const CANDIDATE_SQL = "(status = 'running' AND (lease_host = ? OR owner = ?))";

/** Runs released until a time that has come (one parameter, now). */
export const DUE_SQL = "(status = 'waiting' AND wake_at <= ?)";

/** Parameters of {@link LeaseSql.claimSet}, in order: `leaseMs` is how long the lease lasts. */
export function claimParams(
  holder: LeaseHolder,
  token: string,
  leaseMs: number,
  now: number,
): unknown[] {
  return [holder.owner, holder.host, holder.process, token, leaseMs, now];
}

/**
 * Claims and renews leases. Every claim moves the run to a new epoch (which fences every
 * write of the execution it replaces) under a token no other claim has.
 */
export class Leases {
  private readonly lease: LeaseSql;

  constructor(
    private readonly db: Database,
    private readonly runs: RunStore,
  ) {
    this.lease = leaseSql(db.dialect);
  }

  /**
   * Takes `row` over from whoever held its epoch: one statement. False when another claim
   * moved it first. A retry through a lost connection that finds the run moved on checks the
   * token: it was this claim's own first try exactly when the token is this claim's.
   */
  async claim(
    row: RunRow,
    holder: LeaseHolder,
    token: string,
    leaseMs: number,
    now: number,
  ): Promise<ClaimToken | undefined> {
    const { affected } = await this.db.exec(
      `claim run "${row.id}"`,
      this.db.sql(`UPDATE waymark_runs SET ${this.lease.claimSet} WHERE id = ? AND epoch = ?`),
      [...claimParams(holder, token, leaseMs, now), row.id, row.epoch],
    );
    const claimed = { runId: row.id, epoch: row.epoch + 1, token };
    if (affected === 1) return claimed;
    const current = await this.runs.loadRun(row.id);
    return current?.claimToken === token && current.epoch === claimed.epoch ? claimed : undefined;
  }

  /**
   * Extends the leases of these claims (the runs executing here) to `leaseMs` from now on the
   * server's clock; one statement.
   */
  async renew(claims: readonly ClaimToken[], leaseMs: number, now: number): Promise<void> {
    if (claims.length === 0) return;
    const ids = claims.map((c) => c.runId);
    const tokens = [...new Set(claims.map((c) => c.token))];
    await this.db.exec(
      'renew run leases',
      this.db.sql(
        `UPDATE waymark_runs SET lease_expires_at = ${serverTimeAfterSql(this.db.dialect)}, ` +
          "updated_at = ? WHERE status = 'running' " +
          `AND id IN (${marks(ids.length)}) AND claim_token IN (${marks(tokens.length)})`,
      ),
      [leaseMs, now, ...ids, ...tokens],
    );
  }

  /**
   * Runs to resume: `waiting` runs that are due by `now` (the runtime's clock, which drives
   * timers), and `running` runs that `self` may take over ({@link leaseLapsed}), oldest first.
   */
  async findRecoverable(self: LeaseHolder, now: number, limit: number): Promise<RunRow[]> {
    const { records } = await this.db.exec(
      'find runs to recover',
      this.db.sql(
        `SELECT ${runColumns(this.db.dialect)} FROM waymark_runs ` +
          `WHERE ${this.lease.lapsed} OR ${DUE_SQL} OR ${CANDIDATE_SQL} ORDER BY created_at LIMIT ?`,
      ),
      [now, self.host, self.owner, limit],
    );
    return records
      .map(toRunRow)
      .filter((row) => row.status === 'waiting' || leaseLapsed(row, self));
  }

  /**
   * `running` runs held on this host (or under this worker id) that `self` may take over: their
   * holder is gone, or their lease lapsed ({@link leaseLapsed}).
   */
  async findLapsedHere(self: LeaseHolder, limit: number): Promise<RunRow[]> {
    const { records } = await this.db.exec(
      'find lapsed runs held on this host',
      this.db.sql(
        `SELECT ${runColumns(this.db.dialect)} FROM waymark_runs WHERE ${CANDIDATE_SQL} ` +
          'ORDER BY created_at LIMIT ?',
      ),
      [self.host, self.owner, limit],
    );
    return records.map(toRunRow).filter((row) => leaseLapsed(row, self));
  }
}

function marks(count: number): string {
  return Array(count).fill('?').join(', ');
}
