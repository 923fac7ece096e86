import { Table, type DataSource, type MigrationInterface, type QueryRunner } from 'typeorm';
import { dialectOf, type DialectName } from './Dialect';
import { columnTypes } from './migrations/columnTypes';
import { waymarkMigrations } from './migrations';

const TABLE = 'waymark_migrations';
/** Arbitrary constant naming waymark's advisory lock in PostgreSQL. */
const PG_LOCK_KEY = 73_615_042;

/**
 * Applies waymark's own migrations, recorded in `waymark_migrations` so they never mix
 * with the application's. Holds a database-wide lock while it works, so many processes
 * starting at once apply each migration exactly once.
 */
export class Migrator {
  private readonly dialect: DialectName;

  constructor(
    private readonly dataSource: DataSource,
    private readonly migrations: ReadonlyArray<new () => MigrationInterface> = waymarkMigrations,
  ) {
    this.dialect = dialectOf(dataSource);
  }

  /** Names of migrations not yet applied, oldest first. */
  async pending(): Promise<string[]> {
    return this.withRunner(async (runner) => {
      await this.ensureTable(runner);
      return (await this.pendingOn(runner)).map((m) => m.name!);
    });
  }

  /** Applies every pending migration and returns their names. */
  async migrate(): Promise<string[]> {
    return this.withRunner(async (runner) => {
      await this.lock(runner);
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
        await this.unlock(runner, succeeded);
      }
    });
  }

  private async pendingOn(runner: QueryRunner): Promise<MigrationInterface[]> {
    const rows: Array<{ name: string }> = await runner.query(`SELECT name FROM ${TABLE}`);
    const done = new Set(rows.map((r) => r.name));
    return this.migrations.map((M) => new M()).filter((m) => !done.has(m.name!));
  }

  private async apply(runner: QueryRunner, migration: MigrationInterface): Promise<void> {
    const transactional = this.dialect === 'postgres';
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
      new Table({
        name: TABLE,
        columns: [{ ...c.id('name'), isPrimary: true }, c.millis('applied_at')],
      }),
      true,
    );
  }

  private async lock(runner: QueryRunner): Promise<void> {
    if (this.dialect === 'mysql') await runner.query(`SELECT GET_LOCK('waymark_migrations', 120)`);
    else if (this.dialect === 'postgres')
      await runner.query(`SELECT pg_advisory_lock(${PG_LOCK_KEY})`);
    else await runner.query('BEGIN IMMEDIATE');
  }

  /** SQLite's lock is the transaction itself: a failed migration rolls back entirely. */
  private async unlock(runner: QueryRunner, succeeded: boolean): Promise<void> {
    if (this.dialect === 'mysql') await runner.query(`SELECT RELEASE_LOCK('waymark_migrations')`);
    else if (this.dialect === 'postgres')
      await runner.query(`SELECT pg_advisory_unlock(${PG_LOCK_KEY})`);
    else await runner.query(succeeded ? 'COMMIT' : 'ROLLBACK');
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
