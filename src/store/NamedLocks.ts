import { isDuplicateKey } from './connection/Dialect';
import type { Database } from './connection/Database';
import { serverNowSql, serverTimeAfterSql } from './serverClock';

/**
 * Named leases in `waymark_locks`: at most one holder per name at a time, across every
 * process on the database, until the lease expires by the server's clock (a holder that dies
 * frees it then).
 */
export class NamedLocks {
  constructor(private readonly db: Database) {}

  /**
   * Takes or extends the lease `name` for `holder`, for `leaseMs` from now; false if another
   * holds it. A retry that finds its own first try stored takes it again through the update.
   */
  async acquire(name: string, holder: string, leaseMs: number): Promise<boolean> {
    const { dialect } = this.db;
    const until = serverTimeAfterSql(dialect);
    try {
      await this.exec(
        `take lock "${name}"`,
        `INSERT INTO waymark_locks (name, holder, expires_at) VALUES (?, ?, ${until})`,
        [name, holder, leaseMs],
      );
      return true;
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
    }
    const { affected } = await this.exec(
      `take lock "${name}"`,
      `UPDATE waymark_locks SET holder = ?, expires_at = ${until} WHERE name = ? ` +
        `AND (expires_at < ${serverNowSql(dialect)} OR holder = ?)`,
      [holder, leaseMs, name, holder],
    );
    return affected === 1;
  }

  /** Gives the lease up, if `holder` still has it. */
  async release(name: string, holder: string): Promise<void> {
    await this.exec(
      `release lock "${name}"`,
      'DELETE FROM waymark_locks WHERE name = ? AND holder = ?',
      [name, holder],
    );
  }

  private exec(operation: string, sql: string, params: unknown[]) {
    return this.db.exec(operation, this.db.sql(sql), params);
  }
}
