import { DataSource } from 'typeorm';
import { dataSourceOptionsFromUrl } from 'waymark';
import { Lifecycle } from '../../src/ground/Lifecycle';
import { Database } from '../../src/store/connection/Database';
import { createTestDatabase, type TestDatabase } from '../support/databases';

// A claim that loses a lock race (a deadlock; on Galera, certification) ends with no runs,
// so the worker polls again at its interval instead of waiting out a growing backoff.
describe.each(['mariadb', 'postgres'] as const)(
  'a transaction that loses a lock race on %s',
  (backend) => {
    let db: TestDatabase;
    let dataSource: DataSource;
    let other: DataSource;
    let store: Database;

    beforeAll(async () => {
      db = await createTestDatabase(backend);
      dataSource = await new DataSource(dataSourceOptionsFromUrl(db.url)).initialize();
      other = await new DataSource(dataSourceOptionsFromUrl(db.url)).initialize();
      await dataSource.query('CREATE TABLE race_rows (id INT PRIMARY KEY, n INT NOT NULL)');
      await dataSource.query('INSERT INTO race_rows (id, n) VALUES (1, 0), (2, 0)');
      store = new Database(dataSource, new Lifecycle(), { timeoutMs: 10_000, onRetry: () => {} });
    });

    afterAll(async () => {
      await other?.destroy();
      await dataSource?.destroy();
      await db?.drop();
    });

    const p = (n: number): string => (backend === 'postgres' ? `$${n}` : '?');
    /** Locks the row whose id is the statement's one parameter. */
    const lockRow = (): string => `SELECT n FROM race_rows WHERE id = ${p(1)} FOR UPDATE`;

    /** Runs `work` against a rival that locks row 2 then row 1 while `work` holds 1 and wants 2. */
    async function deadlocked(options: { retry: boolean; lostRace?: () => string }) {
      let tries = 0;
      const runner = other.createQueryRunner();
      await runner.connect();
      try {
        const result = store.transaction(
          'take both rows',
          async (tx) => {
            tries++;
            await tx.exec('lock row 1', lockRow(), [1]);
            if (tries === 1) {
              await runner.startTransaction();
              // The heavier side, so this transaction is the one rolled back: InnoDB picks the
              // transaction that changed fewer rows, PostgreSQL the one whose
              // deadlock_timeout runs out first.
              if (backend === 'postgres') await runner.query("SET LOCAL deadlock_timeout = '10s'");
              await runner.query(`UPDATE race_rows SET n = n + 1 WHERE id = ${p(1)}`, [2]);
              // The rival waits for row 1; this transaction then asks for row 2: a deadlock.
              const rival = runner.query(lockRow(), [1]);
              await new Promise((resolve) => setTimeout(resolve, 200));
              void rival.then(
                () => runner.commitTransaction(),
                () => runner.rollbackTransaction(),
              );
            }
            await tx.exec('lock row 2', lockRow(), [2]);
            return 'took both';
          },
          options,
        );
        return { outcome: await result.catch((error: unknown) => error), tries: () => tries };
      } finally {
        await new Promise((resolve) => setTimeout(resolve, 300));
        await runner.release();
      }
    }

    it('with lostRace, ends with its value after the first conflict', async () => {
      const { outcome, tries } = await deadlocked({ retry: true, lostRace: () => 'lost' });
      expect(outcome).toBe('lost');
      expect(tries()).toBe(1);
    });

    it('without it, a retried transaction runs again after the conflict', async () => {
      const { outcome, tries } = await deadlocked({ retry: true });
      expect(outcome).toBe('took both');
      expect(tries()).toBe(2);
    });
  },
);
