import { injectable } from 'tsyringe';
import type { DataSourceOptions, Logger as TypeOrmLogger } from 'typeorm';
import { Step, Waymark, Workflow, dataSourceOptionsFromUrl } from 'waymark';
import { createTestDatabase, type Backend, type TestDatabase } from '../support/databases';

const RUNS = 24;

@injectable()
class TwoSteps {
  @Workflow({ name: 'gc-runs', id: (key: string) => `gc-runs-${key}` })
  async run(key: string): Promise<string> {
    return `${await this.step(key, 0)}${await this.step(key, 1)}`;
  }

  @Step()
  async step(key: string, seq: number): Promise<string> {
    return `${key}.${seq}`;
  }
}

/**
 * The commits that created runs and that ended them, each as the number of statements it
 * held: a statement outside a transaction is one commit (on a server database one statement
 * may carry many runs), and on SQLite the statements between a BEGIN and its COMMIT are one.
 */
class RunCommits implements TypeOrmLogger {
  readonly creations: number[] = [];
  readonly endings: number[] = [];
  private transaction: { creations: number; endings: number } | undefined;

  logQuery(query: string): void {
    const sql = query.trim();
    if (/^BEGIN\b/i.test(sql)) this.transaction = { creations: 0, endings: 0 };
    else if (/^(COMMIT|ROLLBACK)\b/i.test(sql)) this.endTransaction();
    else if (/^INSERT INTO waymark_runs\b/i.test(sql)) this.count('creations');
    else if (/^UPDATE waymark_runs\b.*\bresult = /is.test(sql)) this.count('endings');
  }

  private count(kind: 'creations' | 'endings'): void {
    if (this.transaction) this.transaction[kind]++;
    else this[kind].push(1);
  }

  private endTransaction(): void {
    const t = this.transaction;
    this.transaction = undefined;
    if (t?.creations) this.creations.push(t.creations);
    if (t?.endings) this.endings.push(t.endings);
  }

  logQueryError(): void {}
  logQuerySlow(): void {}
  logSchemaBuild(): void {}
  logMigration(): void {}
  log(): void {}
}

const BACKENDS: Backend[] = ['sqlite-file', 'mariadb', 'postgres'];

// Concurrent runs started at once share the commits that create them and the commits that
// end them (group commit, on by default), and each caller still gets its own result; with
// group commit off each run is one commit of each.
describe.each(BACKENDS)('runs created and ended in group commits on %s', (backend) => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase(backend);
  });
  afterAll(async () => {
    await db?.drop();
  });

  async function runAll(groupCommit: boolean, prefix: string): Promise<RunCommits> {
    const commits = new RunCommits();
    const database = {
      ...dataSourceOptionsFromUrl(db.url),
      logging: ['query'],
      logger: commits,
    } as DataSourceOptions;
    const runtime = await Waymark.create({ database, groupCommit });
    try {
      const keys = Array.from({ length: RUNS }, (_, i) => `${prefix}-${i}`);
      const results = await Promise.all(keys.map((key) => runtime.run(TwoSteps, 'run', [key])));
      expect(results).toEqual(keys.map((key) => `${key}.0${key}.1`));
      for (const key of keys) {
        await expect(runtime.handle(`gc-runs-${key}`).status()).resolves.toBe('completed');
      }
    } finally {
      await runtime.close();
    }
    return commits;
  }

  it('creates and ends 24 runs started at once in fewer commits than runs', async () => {
    const commits = await runAll(true, 'on');
    // Every run was created and ended (each is stored completed with its result, above).
    expect(commits.creations.length).toBeGreaterThan(0);
    expect(commits.endings.length).toBeGreaterThan(0);
    expect(commits.creations.length).toBeLessThan(RUNS / 2);
    expect(commits.endings.length).toBeLessThan(RUNS / 2);
  });

  it('with groupCommit: false, one commit per run created and per run ended', async () => {
    const commits = await runAll(false, 'off');
    expect(commits.creations).toEqual(Array(RUNS).fill(1));
    expect(commits.endings).toEqual(Array(RUNS).fill(1));
  });
});
