import { DataSource } from 'typeorm';
import { Waymark, dataSourceOptionsFromUrl } from 'waymark';
import { createTestDatabase, type TestDatabase } from '../support/databases';

describe("many runtimes on the application's PostgreSQL DataSource", () => {
  let db: TestDatabase;
  let app: DataSource;
  beforeAll(async () => {
    db = await createTestDatabase('postgres');
    app = await new DataSource(dataSourceOptionsFromUrl(db.url)).initialize();
  });
  afterAll(async () => {
    await app.destroy();
    await db.drop();
  });

  it('opening and closing a runtime a dozen times adds no listener to the pool per runtime', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => {
      warnings.push(warning);
    };
    process.on('warning', onWarning);
    try {
      for (let i = 0; i < 12; i++) {
        const runtime = await Waymark.create({ database: app });
        await runtime.list();
        await runtime.close();
      }
      // Node reports a listener leak on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.map((w) => `${w.name}: ${w.message}`)).toEqual([]);
    const pool = (app.driver as unknown as { master: NodeJS.EventEmitter }).master;
    expect(pool.listenerCount('connect')).toBeLessThanOrEqual(1);
  });
});
