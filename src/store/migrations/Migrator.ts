import type { DataSource, MigrationInterface, QueryRunner } from 'typeorm';
import { typeorm } from '../connection/typeormModule';
import { dialectOf, type DialectName } from '../connection/Dialect';
import { acquireMigrationLock, migrationLockScope, type MigrationLockScope } from './MigrationLock';
import { columnTypes } from './columnTypes';
import { waymarkMigrations } from '.';

const TABLE = 'waymark_migrations';

/** Options of a {@link Migrator}. */
export interface MigratorOptions {
  /**
   * How long to wait for another process applying migrations to the same database before
   * `MigrationLockTimeoutError`; default 120 000 ms.
   */
  readonly lockTimeoutMs?: number;
}

/**
 * Applies waymark's own migrations, recorded in `waymark_migrations` so they never mix
 * with the application's. A schema that is already current is seen without any lock (the
 * usual start); otherwise it takes this database's migration lock, looks again, and
 * applies what is still pending, so many processes starting at once apply each migration
 * exactly once — and never without the lock. Behind a transaction-mode pooler
 * (`pgbouncer=true`) the lock and every pending migration are one transaction.
 *
 * @example
 * ```ts
 * await new Migrator(dataSource).migrate(); // ['M0005AddForks'], or [] when current
 * ```
 */
export class Migrator {
  private readonly dialect: DialectName;
  private readonly lockScope: MigrationLockScope;
  private readonly lockTimeoutMs: number;

  constructor(
    private readonly dataSource: DataSource,
    private readonly migrations: ReadonlyArray<new () => MigrationInterface> = waymarkMigrations,
    options: MigratorOptions = {},
  ) {
    this.dialect = dialectOf(dataSource);
    this.lockScope = migrationLockScope(this.dialect, dataSource.options);
    this.lockTimeoutMs = options.lockTimeoutMs ?? 120_000;
  }

  /** Names of migrations not yet applied, oldest first. Writes nothing. */
  async pending(): Promise<string[]> {
    return this.withRunner(async (runner) => (await this.pendingOn(runner)).map((m) => m.name!));
  }

  /** Applies every pending migration and returns their names. */
  async migrate(): Promise<string[]> {
    if ((await this.pending()).length === 0) return [];
    return this.withRunner(async (runner) => {
      const release = await acquireMigrationLock(
        runner,
        this.dialect,
        this.lockScope,
        this.lockTimeoutMs,
      );
      let succeeded = false;
      try {
        await this.ensureTable(runner);
        const applied: string[] = [];
        for (const migration of await this.pendingOn(runner)) {
          await this.apply(runner, migration);
          applied.push(migration.name!);
        }
        succeeded = true;
        return applied;
      } finally {
        await release(succeeded);
      }
    });
  }

  /** Pending migrations; all of them while the bookkeeping table does not exist. */
  private async pendingOn(runner: QueryRunner): Promise<MigrationInterface[]> {
    if (!(await runner.hasTable(TABLE))) return this.migrations.map((M) => new M());
    const rows = (await runner.query(`SELECT name FROM ${TABLE}`)) as Array<{ name: string }>;
    const done = new Set(rows.map((r) => r.name));
    return this.migrations.map((M) => new M()).filter((m) => !done.has(m.name!));
  }

  private async apply(runner: QueryRunner, migration: MigrationInterface): Promise<void> {
    // PostgreSQL rolls DDL back: each migration commits whole, unless the lock's own
    // transaction holds them all (then they commit together).
    const transactional = this.dialect === 'postgres' && this.lockScope === 'session';
    if (transactional) await runner.startTransaction();
    try {
      await migration.up(runner);
      await runner.query(
        `INSERT INTO ${TABLE} (name, applied_at) VALUES (${this.dialect === 'postgres' ? '$1, $2' : '?, ?'})`,
        [migration.name, Date.now()],
      );
      if (transactional) await runner.commitTransaction();
    } catch (error) {
      if (transactional) await runner.rollbackTransaction();
      throw error;
    }
  }

  private async ensureTable(runner: QueryRunner): Promise<void> {
    const c = columnTypes(runner);
    await runner.createTable(
      new (typeorm().Table)({
        name: TABLE,
        columns: [{ ...c.id('name'), isPrimary: true }, c.millis('applied_at')],
      }),
      true,
    );
  }

  private async withRunner<T>(work: (runner: QueryRunner) => Promise<T>): Promise<T> {
    const runner = this.dataSource.createQueryRunner();
    await runner.connect();
    try {
      return await work(runner);
    } finally {
      await runner.release();
    }
  }
}
