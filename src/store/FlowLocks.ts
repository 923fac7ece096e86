import type { DialectName } from './connection/Dialect';
import type { Database } from './connection/Database';

/** What a row of `waymark_queues` stands for. */
export type FlowKind = 'queue' | 'limiter';

/**
 * Locks the row of a named queue or limiter (`waymark_queues`), which also holds its
 * recorded limits and its pause. A claim on a queue (a slot of a limiter) first
 * updates that row, inside its transaction: claims of one queue then take turns in every
 * dialect (a row lock on MySQL/MariaDB and PostgreSQL, SQLite's one writer), so the counts
 * they read are the counts they act on.
 */
export class FlowLocks {
  constructor(private readonly db: Database) {}

  /** Takes the row's lock for the transaction `store` is bound to, creating the row if need be. */
  async lock(kind: FlowKind, name: string, now: number): Promise<void> {
    const bump = this.db.sql(
      'UPDATE waymark_queues SET lock_version = COALESCE(lock_version, 0) + 1 WHERE kind = ? AND name = ?',
    );
    const { affected } = await this.db.exec(`lock ${kind} "${name}"`, bump, [kind, name]);
    if ((affected ?? 0) > 0) return;
    await this.ensure(kind, name, null, now);
    await this.db.exec(`lock ${kind} "${name}"`, bump, [kind, name]);
  }

  /** Creates the row (with `config`, a description for operators) unless it exists. */
  async ensure(kind: FlowKind, name: string, config: string | null, now: number): Promise<void> {
    const insert = insertIgnoring(
      this.db.dialect,
      'INSERT INTO waymark_queues (kind, name, config, paused_until, lock_version, updated_at) ' +
        'VALUES (?, ?, ?, NULL, 0, ?)',
    );
    await this.db.exec(`record ${kind} "${name}"`, this.db.sql(insert), [kind, name, config, now]);
    if (config !== null) {
      await this.db.exec(
        `record ${kind} "${name}"`,
        this.db.sql(
          'UPDATE waymark_queues SET config = ?, updated_at = ? WHERE kind = ? AND name = ?',
        ),
        [config, now, kind, name],
      );
    }
  }

  /** When a limiter's stored pause ends (epoch ms), or null when it is not paused. */
  async pausedUntil(kind: FlowKind, name: string): Promise<number | null> {
    const { records } = await this.db.exec(
      `read ${kind} "${name}"`,
      this.db.sql('SELECT paused_until FROM waymark_queues WHERE kind = ? AND name = ?'),
      [kind, name],
    );
    const value = (records[0] as { paused_until?: unknown } | undefined)?.paused_until;
    return value === null || value === undefined ? null : Number(value);
  }

  /** Pauses until `until`, or leaves a later pause as it is. */
  async pause(kind: FlowKind, name: string, until: number, now: number): Promise<void> {
    await this.ensure(kind, name, null, now);
    await this.db.exec(
      `pause ${kind} "${name}"`,
      this.db.sql(
        'UPDATE waymark_queues SET paused_until = ?, updated_at = ? WHERE kind = ? AND name = ? ' +
          'AND (paused_until IS NULL OR paused_until < ?)',
      ),
      [until, now, kind, name, until],
    );
  }
}

/** `INSERT` that does nothing when the primary key exists, in each dialect. */
export function insertIgnoring(dialect: DialectName, insert: string): string {
  if (dialect === 'sqlite') return insert.replace(/^INSERT/, 'INSERT OR IGNORE');
  if (dialect === 'mysql') return insert.replace(/^INSERT/, 'INSERT IGNORE');
  return `${insert} ON CONFLICT DO NOTHING`;
}
