import { isDuplicateKey } from './connection/Dialect';
import type { Database } from './connection/Database';

/** A global idempotency key: which run's step holds it, and its result once completed. */
export interface KeyRow {
  key: string;
  runId: string;
  seq: number;
  status: 'started' | 'completed';
  output: string | null;
  updatedAt: number;
}

const KEYS = 'waymark_idempotency_keys';

/**
 * Global idempotency keys (`@Idempotent({ scope: 'global' })`): one row per key, taken by
 * the first step that claims it, completed with that step's result. Each method is one
 * statement; pass a store bound to a transaction to make it part of one.
 */
export class KeyStore {
  constructor(private readonly db: Database) {}

  /** Takes `key` for `runId`/`seq`; false when someone holds it. */
  async insert(key: string, runId: string, seq: number, now: number): Promise<boolean> {
    try {
      await this.exec(
        `claim idempotency key "${key}"`,
        `INSERT INTO ${KEYS} (idempotency_key, run_id, seq, status, output, created_at, updated_at) ` +
          "VALUES (?, ?, ?, 'started', NULL, ?, ?)",
        [key, runId, seq, now, now],
      );
      return true;
    } catch (error) {
      if (isDuplicateKey(error)) return false;
      throw error;
    }
  }

  async load(key: string): Promise<KeyRow | undefined> {
    const { records } = await this.exec(
      `read idempotency key "${key}"`,
      `SELECT idempotency_key, run_id, seq, status, output, updated_at FROM ${KEYS} WHERE idempotency_key = ?`,
      [key],
    );
    const raw = records[0] as Record<string, unknown> | undefined;
    if (!raw) return undefined;
    return {
      key: String(raw.idempotency_key),
      runId: String(raw.run_id),
      seq: Number(raw.seq),
      status: String(raw.status) as KeyRow['status'],
      output: typeof raw.output === 'string' ? raw.output : null,
      updatedAt: Number(raw.updated_at),
    };
  }

  /** Moves a key from a run that can no longer finish with it; false when it moved on. */
  async takeOver(held: KeyRow, runId: string, seq: number, now: number): Promise<boolean> {
    const { affected } = await this.exec(
      `take over idempotency key "${held.key}"`,
      `UPDATE ${KEYS} SET run_id = ?, seq = ?, updated_at = ? ` +
        "WHERE idempotency_key = ? AND run_id = ? AND seq = ? AND status = 'started'",
      [runId, seq, now, held.key, held.runId, held.seq],
    );
    return affected === 1;
  }

  /**
   * Completes the key with its holder's result; false when it is no longer `runId`/`seq`'s
   * (another run took it over while this one was frozen or cut off).
   */
  async complete(
    key: string,
    runId: string,
    seq: number,
    output: string,
    now: number,
  ): Promise<boolean> {
    const { affected } = await this.exec(
      `complete idempotency key "${key}"`,
      `UPDATE ${KEYS} SET status = 'completed', output = ?, updated_at = ? ` +
        'WHERE idempotency_key = ? AND run_id = ? AND seq = ?',
      [output, now, key, runId, seq],
    );
    if (affected === 1) return true;
    // MySQL counts an update that changes nothing (a retried write) as 0 rows.
    const held = await this.load(key);
    return held?.runId === runId && held.seq === seq;
  }

  /** Gives the key up: `runId`/`seq`'s step failed, or parked, so it holds no result. */
  async release(key: string, runId: string, seq: number): Promise<void> {
    await this.exec(
      `release idempotency key "${key}"`,
      `DELETE FROM ${KEYS} WHERE idempotency_key = ? AND run_id = ? AND seq = ?`,
      [key, runId, seq],
    );
  }

  private exec(operation: string, sql: string, params: unknown[]) {
    return this.db.exec(operation, this.db.sql(sql), params);
  }
}
