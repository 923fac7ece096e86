import { holderIsAlive, type LeaseHolder } from '../ground/ProcessIdentity';
import { toRunRow, type RunRow } from './rows';
import type { RunStore } from './RunStore';
import { numbered, RUN_COLUMNS } from './statements';

/** What a run's lease says about who holds it. */
export type LeaseView = Pick<
  RunRow,
  'status' | 'owner' | 'leaseExpiresAt' | 'leaseHost' | 'leaseProcess'
>;

/** One claim of one run: the epoch every write of its execution is fenced by, and its token. */
export interface ClaimToken {
  readonly runId: string;
  readonly epoch: number;
  readonly token: string;
}

/**
 * The one definition of "this `running` run may be taken over" by `self`: its lease expired;
 * or it is held on this host by a process (or, in this process, a runtime) that no longer
 * exists; or it is held under `self`'s worker id by a process other than `self` — a previous
 * life of this worker (a restart under the same `workerId`).
 */
export function leaseLapsed(row: LeaseView, now: number, self: LeaseHolder): boolean {
  if (row.status !== 'running') return false;
  if (row.leaseExpiresAt === null || row.leaseExpiresAt < now) return true;
  if (row.leaseProcess === self.process) return false;
  if (row.leaseHost === self.host && row.leaseProcess !== null) {
    return !holderIsAlive(row.leaseProcess);
  }
  return row.owner === self.owner;
}

/**
 * The SQL form of the same rule, as far as SQL can tell: a lapsed lease (one parameter, now).
 * Runs held on this host or under this worker id are candidates ({@link CANDIDATE_SQL}) that
 * {@link leaseLapsed} then decides on.
 */
export const LAPSED_SQL = "(status = 'running' AND lease_expires_at < ?)";

/**
 * A lapsed lease held by another runtime (parameters: now, this runtime's holder process):
 * a runtime whose own lease ran late (a stalled event loop) does not take its runs from itself.
 */
export const LAPSED_ELSEWHERE_SQL =
  "(status = 'running' AND lease_expires_at < ? AND (lease_process IS NULL OR lease_process <> ?))";

/** Runs `running` on this host or under this worker id (parameters: host, owner). */
export const CANDIDATE_SQL = "(status = 'running' AND (lease_host = ? OR owner = ?))";

/** Runs released until a time that has come (one parameter, now). */
export const DUE_SQL = "(status = 'waiting' AND wake_at <= ?)";

/** The columns a claim sets: running, held by a holder under a new epoch and token. */
export const CLAIM_SET =
  "status = 'running', owner = ?, lease_host = ?, lease_process = ?, claim_token = ?, " +
  'epoch = epoch + 1, lease_expires_at = ?, wake_at = NULL, waiting_for = NULL, updated_at = ?';

/** Parameters of {@link CLAIM_SET}, in order. */
export function claimParams(
  holder: LeaseHolder,
  token: string,
  leaseUntil: number,
  now: number,
): unknown[] {
  return [holder.owner, holder.host, holder.process, token, leaseUntil, now];
}

/**
 * Claims and renews leases. Every claim moves the run to a new epoch (which fences every
 * write of the execution it replaces) under a token no other claim has.
 */
export class Leases {
  constructor(private readonly store: RunStore) {}

  /**
   * Takes `row` over from whoever held its epoch: one statement. False when another claim
   * moved it first. A retry through a lost connection that finds the run moved on checks the
   * token: it was this claim's own first try exactly when the token is this claim's.
   */
  async claim(
    row: RunRow,
    holder: LeaseHolder,
    token: string,
    leaseUntil: number,
    now: number,
  ): Promise<ClaimToken | undefined> {
    const { affected } = await this.store.exec(
      `claim run "${row.id}"`,
      this.sql(`UPDATE waymark_runs SET ${CLAIM_SET} WHERE id = ? AND epoch = ?`),
      [...claimParams(holder, token, leaseUntil, now), row.id, row.epoch],
    );
    const claimed = { runId: row.id, epoch: row.epoch + 1, token };
    if (affected === 1) return claimed;
    const current = await this.store.loadRun(row.id);
    return current?.claimToken === token && current.epoch === claimed.epoch ? claimed : undefined;
  }

  /** Extends the leases of these claims (the runs executing here); one statement. */
  async renew(claims: readonly ClaimToken[], leaseUntil: number, now: number): Promise<void> {
    if (claims.length === 0) return;
    const ids = claims.map((c) => c.runId);
    const tokens = [...new Set(claims.map((c) => c.token))];
    await this.store.exec(
      'renew run leases',
      this.sql(
        "UPDATE waymark_runs SET lease_expires_at = ?, updated_at = ? WHERE status = 'running' " +
          `AND id IN (${marks(ids.length)}) AND claim_token IN (${marks(tokens.length)})`,
      ),
      [leaseUntil, now, ...ids, ...tokens],
    );
  }

  /**
   * Runs to resume: `waiting` runs that are due, and `running` runs that `self` may take
   * over ({@link leaseLapsed}), oldest first.
   */
  async findRecoverable(self: LeaseHolder, now: number, limit: number): Promise<RunRow[]> {
    const { records } = await this.store.exec(
      'find runs to recover',
      this.sql(
        `SELECT ${RUN_COLUMNS} FROM waymark_runs WHERE ${LAPSED_SQL} OR ${DUE_SQL} OR ${CANDIDATE_SQL} ` +
          'ORDER BY created_at LIMIT ?',
      ),
      [now, now, self.host, self.owner, limit],
    );
    return records
      .map(toRunRow)
      .filter((row) => row.status === 'waiting' || leaseLapsed(row, now, self));
  }

  /** `running` runs held on this host (or under this worker id) by a holder that is gone. */
  async findAbandonedHere(self: LeaseHolder, now: number, limit: number): Promise<RunRow[]> {
    const { records } = await this.store.exec(
      'find runs left by stopped processes on this host',
      this.sql(
        `SELECT ${RUN_COLUMNS} FROM waymark_runs WHERE ${CANDIDATE_SQL} ORDER BY created_at LIMIT ?`,
      ),
      [self.host, self.owner, limit],
    );
    return records.map(toRunRow).filter((row) => leaseLapsed(row, now, self));
  }

  private sql(text: string): string {
    return numbered(text, this.store.dialect === 'postgres');
  }
}

function marks(count: number): string {
  return Array(count).fill('?').join(', ');
}
