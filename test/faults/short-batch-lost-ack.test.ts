import { DataSource } from 'typeorm';
import { dataSourceOptionsFromUrl } from 'waymark';
import { LeaseLostError } from '../../src/errors/LeaseLostError';
import { Lifecycle } from '../../src/ground/Lifecycle';
import { Database } from '../../src/store/connection/Database';
import { Migrator } from '../../src/store/migrations/Migrator';
import { newRunRowOf } from '../../src/store/rows';
import { RunStore } from '../../src/store/RunStore';
import { StepBatches } from '../../src/store/StepBatches';
import { completedStepRow } from '../support/completedStepRow';
import { createTestDatabase, type TestDatabase } from '../support/databases';
import { FaultProxy } from './support/FaultProxy';

/**
 * PostgreSQL: a batch of checkpoints that fell short (a run in it was claimed by another
 * process) reads its runs' epochs to tell which rows landed. When the answer to that read is
 * lost, the store reads again on a new connection, and every row still gets its own answer.
 */
describe('a PostgreSQL batch that fell short, its epoch read cut off', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let proxy: FaultProxy;

  beforeAll(async () => {
    db = await createTestDatabase('postgres');
    const url = new URL(db.url);
    proxy = await FaultProxy.start({ dialect: 'postgres', port: Number(url.port) });
    url.port = String(proxy.port);
    dataSource = await new DataSource(dataSourceOptionsFromUrl(url.toString())).initialize();
    await new Migrator(dataSource).migrate();
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await proxy?.close();
    await db?.drop();
  });

  it('reads the epochs again, and answers each row as it would have', async () => {
    const database = new Database(dataSource, new Lifecycle(), {
      timeoutMs: 10_000,
      onRetry: () => {},
    });
    const store = new RunStore(database);
    const insertRun = (id: string, epoch: number): Promise<boolean> =>
      store.insertRun(
        newRunRowOf({ id, workflow: 'batch', version: null, args: '[]', epoch, createdAt: 0 }),
        null,
      );
    await insertRun('kept', 3);
    await insertRun('taken', 4);

    let lost = 0;
    const decide = proxy.onCompletion((completion) => {
      if (lost > 0 || completion.error) return undefined;
      if (!completion.statement.sql.startsWith('SELECT id, epoch FROM waymark_runs'))
        return undefined;
      lost++;
      return { kind: 'lost-ack' };
    });
    try {
      const landings = await new StepBatches(database, store).write([
        { row: completedStepRow('kept', 0, '"a"'), epoch: 3 },
        { row: completedStepRow('taken', 0, '"stale"'), epoch: 3 },
        { row: completedStepRow('kept', 1, '"b"'), epoch: 3 },
      ]);
      expect(lost).toBe(1);
      expect(landings).toEqual([
        { status: 'fulfilled', value: 'inserted' },
        { status: 'rejected', reason: expect.any(LeaseLostError) },
        { status: 'fulfilled', value: 'inserted' },
      ]);
    } finally {
      decide.dispose();
    }
    await expect(store.loadStep('kept', 1)).resolves.toEqual(
      expect.objectContaining({ output: '"b"' }),
    );
    await expect(store.loadStep('taken', 0)).resolves.toBeUndefined();
  });
});
