import { DataSource, Table } from 'typeorm';
import { WaymarkRuntime } from '../runtime/WaymarkRuntime';
import { dataSourceOptionsFromUrl } from '../runtime/DatabaseAccess';

/** One recorded external effect. */
export interface Effect {
  readonly key: string;
  readonly detail: string | null;
  readonly pid: number;
  readonly at: Date;
}

const TABLE = 'waymark_test_effects';

/**
 * Records external effects (a charge, an email, a message) by key in the test database, so
 * a test can assert "each key exactly once" across crashes, restarts and processes. Have
 * your fake gateway call `record(key)` when it really performs an effect.
 *
 * @example
 * ```ts
 * const ledger = await EffectLedger.open(runtime);
 * const gateway = new FakeGateway(ledger); // calls ledger.record(idempotencyKey) per charge
 * // … crash and restart the agent …
 * await expect(ledger).toHaveEffectOnce('charge:order-42');
 * await ledger.close();
 * ```
 */
export class EffectLedger {
  private constructor(
    private readonly dataSource: DataSource,
    private readonly owned: boolean,
  ) {}

  /**
   * Opens the ledger in the database of `target`: a runtime (an in-memory test database
   * is shared, so the ledger survives `restart()`), a DataSource, or a URL.
   */
  static async open(target: WaymarkRuntime | DataSource | string): Promise<EffectLedger> {
    let ledger: EffectLedger;
    if (target instanceof DataSource) {
      ledger = new EffectLedger(target, false);
    } else if (target instanceof WaymarkRuntime) {
      const { options } = target.dataSource;
      const memory = options.type === 'better-sqlite3' && options.database === ':memory:';
      ledger = memory
        ? new EffectLedger(target.dataSource, false)
        : new EffectLedger(await new DataSource(options).initialize(), true);
    } else {
      ledger = new EffectLedger(
        await new DataSource(dataSourceOptionsFromUrl(target)).initialize(),
        true,
      );
    }
    await ledger.ensureTable();
    return ledger;
  }

  /** Records that the effect `key` happened (once per call). */
  async record(key: string, detail?: string): Promise<void> {
    await this.dataSource.query(
      this.sql(`INSERT INTO ${TABLE} (effect_key, detail, pid, at) VALUES (?, ?, ?, ?)`),
      [key, detail ?? null, process.pid, Date.now()],
    );
  }

  /** How many times the effect `key` happened. */
  async count(key: string): Promise<number> {
    const [row] = await this.dataSource.query<Array<{ n: unknown }>>(
      this.sql(`SELECT COUNT(*) AS n FROM ${TABLE} WHERE effect_key = ?`),
      [key],
    );
    return Number(row?.n ?? 0);
  }

  /** Every effect, in the order recorded. */
  async entries(): Promise<Effect[]> {
    const rows = await this.dataSource.query<Array<Record<string, unknown>>>(
      `SELECT effect_key, detail, pid, at FROM ${TABLE} ORDER BY id`,
    );
    return rows.map((r) => ({
      key: String(r.effect_key),
      detail: r.detail === null ? null : String(r.detail as string),
      pid: Number(r.pid),
      at: new Date(Number(r.at)),
    }));
  }

  /** Keys whose effect happened more than once. */
  async duplicates(): Promise<string[]> {
    const rows = await this.dataSource.query<Array<{ effect_key: string }>>(
      `SELECT effect_key FROM ${TABLE} GROUP BY effect_key HAVING COUNT(*) > 1`,
    );
    return rows.map((r) => r.effect_key);
  }

  async close(): Promise<void> {
    if (this.owned && this.dataSource.isInitialized) await this.dataSource.destroy();
  }

  private async ensureTable(): Promise<void> {
    const runner = this.dataSource.createQueryRunner();
    try {
      await runner.createTable(
        new Table({
          name: TABLE,
          columns: [
            {
              name: 'id',
              type: 'integer',
              isPrimary: true,
              isGenerated: true,
              generationStrategy: 'increment',
            },
            { name: 'effect_key', type: 'varchar', length: '255' },
            { name: 'detail', type: 'varchar', length: '255', isNullable: true },
            { name: 'pid', type: 'integer' },
            { name: 'at', type: 'bigint' },
          ],
        }),
        true,
      );
    } finally {
      await runner.release();
    }
  }

  private sql(text: string): string {
    if (this.dataSource.options.type !== 'postgres') return text;
    let n = 0;
    return text.replace(/\?/g, () => `$${++n}`);
  }
}
