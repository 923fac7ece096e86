import { DataSource } from 'typeorm';
import { dataSourceOptionsFromUrl } from 'waymark';
import { Lifecycle } from '../../src/ground/Lifecycle';
import { Database } from '../../src/store/connection/Database';
import { Migrator } from '../../src/store/migrations/Migrator';
import { createTestDatabase, type Backend } from './databases';

/** A test database of `backend` with waymark's tables, and the store's handle on it. */
export interface MigratedDatabase {
  readonly database: Database;
  /** Closes the connection and drops the test database. */
  close(): Promise<void>;
}

/** Creates a test database, migrates it, and opens the store's {@link Database} on it. */
export async function migratedDatabase(backend: Backend): Promise<MigratedDatabase> {
  const db = await createTestDatabase(backend);
  const dataSource = await new DataSource(dataSourceOptionsFromUrl(db.url)).initialize();
  await new Migrator(dataSource).migrate();
  const database = new Database(dataSource, new Lifecycle(), {
    timeoutMs: 10_000,
    onRetry: () => {},
  });
  return {
    database,
    close: async () => {
      await dataSource.destroy();
      await db.drop();
    },
  };
}
