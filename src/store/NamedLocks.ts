import { isDuplicateKey } from './Dialect';
import type { RunStore } from './RunStore';
import { numbered } from './statements';

/**
 * Named leases in `waymark_locks`: at most one holder per name at a time, across every
 * process on the database, until the lease expires (a holder that dies frees it then).
 */
export class NamedLocks {
  constructor(private readonly store: RunStore) {}

  /** Takes or extends the lease `name` for `holder` until `until`; false if another holds it. */
  async acquire(name: string, holder: string, until: number, now: number): Promise<boolean> {
    try {
      await this.exec(
        `take lock "${name}"`,
        'INSERT INTO waymark_locks (name, holder, expires_at) VALUES (?, ?, ?)',
        [name, holder, until],
      );
      return true;
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
    }
    const { affected } = await this.exec(
      `take lock "${name}"`,
      'UPDATE waymark_locks SET holder = ?, expires_at = ? WHERE name = ? AND (expires_at < ? OR holder = ?)',
      [holder, until, name, now, holder],
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
    return this.store.exec(operation, numbered(sql, this.store.dialect === 'postgres'), params);
  }
}
