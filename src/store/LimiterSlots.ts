import type { ResolvedLimiter } from '../policies/FlowLimits';
import { FlowLocks } from './FlowLocks';
import type { Database } from './connection/Database';
import { serverNowSql, serverTimeAfterSql } from './serverClock';

/**
 * One slot to take: its id, for which run, when (the runtime's clock, which rate limits count
 * by), and for how long unless renewed (a lease, on the server's clock like a run's).
 */
export interface SlotRequest {
  readonly id: string;
  readonly runId: string;
  readonly now: number;
  readonly leaseMs: number;
}

/** A slot taken, or the earliest time worth asking again. */
export type SlotAnswer =
  { readonly taken: true } | { readonly taken: false; readonly retryAt: number };

/** How soon to ask again when every slot is held (a holder may release any moment). */
const BUSY_RETRY_MS = 50;

/**
 * The slots of named limiters (`runtime.limiter`), shared by every worker process: a slot
 * is taken under the limiter's row lock when the limiter is not paused, fewer than
 * `concurrency` slots are held (unreleased and unexpired by the server's clock), and fewer
 * than `rateLimit.limit` were taken within the period. Slots older than the period are deleted as new ones are taken.
 */
export class LimiterSlots {
  constructor(private readonly db: Database) {}

  async take(limiter: ResolvedLimiter, slot: SlotRequest): Promise<SlotAnswer> {
    return this.db.transaction(
      `take a slot of limiter "${limiter.name}"`,
      async (tx) => {
        const locks = new FlowLocks(tx);
        await locks.lock('limiter', limiter.name, slot.now);
        // Run again after a COMMIT whose answer was lost: the slot may be taken already.
        if (await this.holds(tx, slot.id)) return { taken: true };
        const pausedUntil = await locks.pausedUntil('limiter', limiter.name);
        if (pausedUntil !== null && pausedUntil > slot.now)
          return { taken: false, retryAt: pausedUntil };
        const keepMs = limiter.rateLimit?.periodMs ?? 0;
        await tx.exec(
          'forget old limiter slots',
          this.db.sql(
            'DELETE FROM waymark_limiter_slots WHERE limiter = ? AND acquired_at <= ? ' +
              `AND (released_at IS NOT NULL OR expires_at <= ${this.serverNow()})`,
          ),
          [limiter.name, slot.now - keepMs],
        );
        const busy = await this.busy(tx, limiter, slot.now);
        if (busy !== undefined) return { taken: false, retryAt: busy };
        await tx.exec(
          'take a limiter slot',
          this.db.sql(
            'INSERT INTO waymark_limiter_slots (id, limiter, run_id, acquired_at, expires_at, released_at) ' +
              `VALUES (?, ?, ?, ?, ${serverTimeAfterSql(tx.dialect)}, NULL)`,
          ),
          [slot.id, limiter.name, slot.runId, slot.now, slot.leaseMs],
        );
        return { taken: true };
      },
      { retry: true },
    );
  }

  /** Extends held slots (their attempts still run) to `leaseMs` from now on the server's clock. */
  async renew(ids: readonly string[], leaseMs: number): Promise<void> {
    if (ids.length === 0) return;
    await this.db.exec(
      'renew limiter slots',
      this.db.sql(
        `UPDATE waymark_limiter_slots SET expires_at = ${serverTimeAfterSql(this.db.dialect)} ` +
          `WHERE released_at IS NULL AND id IN (${ids.map(() => '?').join(', ')})`,
      ),
      [leaseMs, ...ids],
    );
  }

  async release(id: string, now: number): Promise<void> {
    await this.db.exec(
      'release a limiter slot',
      this.db.sql('UPDATE waymark_limiter_slots SET released_at = ? WHERE id = ?'),
      [now, id],
    );
  }

  /** Pauses every step under the limiter, in every worker, until `until`. */
  pause(name: string, until: number, now: number): Promise<void> {
    return new FlowLocks(this.db).pause('limiter', name, until, now);
  }

  private async holds(tx: Database, id: string): Promise<boolean> {
    const { records } = await tx.exec(
      'look for this limiter slot',
      this.db.sql(
        'SELECT 1 AS held FROM waymark_limiter_slots WHERE id = ? AND released_at IS NULL',
      ),
      [id],
    );
    return records.length > 0;
  }

  /** When the limiter is full: the earliest time a slot may be free; undefined when one is. */
  private async busy(
    tx: Database,
    limiter: ResolvedLimiter,
    now: number,
  ): Promise<number | undefined> {
    if (limiter.concurrency !== undefined) {
      const { records } = await tx.exec(
        'count held limiter slots',
        this.db.sql(
          'SELECT COUNT(*) AS n FROM waymark_limiter_slots WHERE limiter = ? AND released_at IS NULL ' +
            `AND expires_at > ${this.serverNow()}`,
        ),
        [limiter.name],
      );
      if (Number((records[0] as { n: unknown }).n) >= limiter.concurrency)
        return now + BUSY_RETRY_MS;
    }
    if (limiter.rateLimit !== undefined) {
      const { periodMs, limit } = limiter.rateLimit;
      const { records } = await tx.exec(
        'count recent limiter slots',
        this.db.sql(
          'SELECT COUNT(*) AS n, MIN(acquired_at) AS first FROM waymark_limiter_slots WHERE limiter = ? AND acquired_at > ?',
        ),
        [limiter.name, now - periodMs],
      );
      const row = records[0] as { n: unknown; first: unknown };
      if (Number(row.n) >= limit) return Number(row.first) + periodMs + 1;
    }
    return undefined;
  }

  private serverNow(): string {
    return serverNowSql(this.db.dialect);
  }
}
