import { DataSource } from 'typeorm';
import { Waymark, dataSourceOptionsFromUrl } from 'waymark';
import { Migrator, waymarkMigrations } from 'waymark/migrations';
import { ALL_BACKENDS, createTestDatabase, type TestDatabase } from '../support/databases';

describe.each(ALL_BACKENDS.filter((b) => b !== 'sqlite'))('migrations on %s', (backend) => {
  let db: TestDatabase;

  beforeEach(async () => {
    db = await createTestDatabase(backend);
  });
  afterEach(async () => {
    await db.drop();
  });

  async function withDataSource<T>(work: (dataSource: DataSource) => Promise<T>): Promise<T> {
    const dataSource = new DataSource(dataSourceOptionsFromUrl(db.url));
    await dataSource.initialize();
    try {
      return await work(dataSource);
    } finally {
      await dataSource.destroy();
    }
  }

  it('applies each migration once, also when several processes start at once', async () => {
    const runtimes = await Promise.all([1, 2, 3].map(() => Waymark.create({ database: db.url })));
    await Promise.all(runtimes.map((r) => r.close()));
    const applied = await withDataSource((ds) =>
      ds.query('SELECT name FROM waymark_migrations ORDER BY name'),
    );
    expect(applied).toEqual(waymarkMigrations.map((M) => ({ name: new M().name })));
    await expect(withDataSource((ds) => new Migrator(ds).pending())).resolves.toEqual([]);
  });

  it('a migration interrupted halfway (MySQL cannot roll DDL back) completes on the next start', async () => {
    await (await Waymark.create({ database: db.url })).close();
    await withDataSource(async (ds) => {
      await ds.query('DROP TABLE waymark_steps');
      await ds.query('DELETE FROM waymark_migrations');
    });
    const runtime = await Waymark.create({ database: db.url });
    await runtime.close();
    const tables = await withDataSource((ds) =>
      Promise.all(
        ['waymark_runs', 'waymark_steps', 'waymark_attempts'].map((t) =>
          ds.createQueryRunner().hasTable(t),
        ),
      ),
    );
    expect(tables).toEqual([true, true, true]);
  });

  it('migrate: false leaves the schema to the application', async () => {
    const runtime = await Waymark.create({ database: db.url, migrate: false });
    await runtime.close();
    await expect(
      withDataSource((ds) => ds.createQueryRunner().hasTable('waymark_runs')),
    ).resolves.toBe(false);
  });
});
