import { LeaseLostError } from 'waymark';
import { StepRecords } from '../../src/runtime/execution/StepRecords';
import { GroupCommit } from '../../src/store/GroupCommit';
import { newRunRowOf, type StepRow } from '../../src/store/rows';
import { RunStore } from '../../src/store/RunStore';
import { FinishBatches } from '../../src/store/FinishBatches';
import { StartBatches } from '../../src/store/StartBatches';
import { StepBatches } from '../../src/store/StepBatches';
import { completedStepRow as stepRow } from '../support/completedStepRow';
import { ALL_BACKENDS } from '../support/databases';
import { migratedDatabase, type MigratedDatabase } from '../support/migratedDatabase';

// On SQLite a checkpoint's statement runs on the calling thread, so the plain step path takes
// its answer as it is, with no promise to wait for. Whatever the path, the answer is the same:
// the row stored, a lost fence refused, the first writer's row for a seq written twice.
describe.each(ALL_BACKENDS)('a checkpoint written at once where it can be, on %s', (backend) => {
  const sqlite = backend === 'sqlite' || backend === 'sqlite-file';
  let db: MigratedDatabase;
  let store: RunStore;
  let records: StepRecords;

  beforeAll(async () => {
    db = await migratedDatabase(backend);
    store = new RunStore(db.database);
    const writers = {
      starts: new StartBatches(db.database, store),
      steps: new StepBatches(db.database, store),
      finishes: new FinishBatches(db.database),
    };
    const lanes = { count: sqlite ? 1 : 2, fewestRows: 2 };
    const commits = new GroupCommit(store, writers, { maxRows: 500, maxBytes: 1 << 20 }, lanes);
    records = new StepRecords(store, commits);
  });

  afterAll(async () => {
    await db?.close();
  });

  async function run(id: string): Promise<number> {
    const row = newRunRowOf({
      id,
      workflow: 'at-once',
      version: null,
      args: '[]',
      epoch: 1,
      createdAt: Date.now(),
    });
    await store.insertRun(row, null);
    return row.epoch;
  }

  it(
    sqlite
      ? 'answers with the row itself, stored before the call returned'
      : 'answers with a promise of the row, stored once it resolves',
    async () => {
      const epoch = await run('plain');
      const row = stepRow('plain', 0, '"first"');
      const answer = records.recordNow(row, { epoch });
      if (sqlite) {
        expect(answer).toBe(row);
      } else {
        expect(answer).toBeInstanceOf(Promise);
        await expect(answer).resolves.toBe(row);
      }
      await expect(store.loadStep('plain', 0)).resolves.toMatchObject({ output: '"first"' });
    },
  );

  it('refuses a write whose fence is lost, with LeaseLostError, and stores nothing', async () => {
    const epoch = await run('lost');
    const answer = records.recordNow(stepRow('lost', 0, '"late"'), { epoch: epoch + 1 });
    expect(answer).toBeInstanceOf(Promise);
    await expect(answer).rejects.toBeInstanceOf(LeaseLostError);
    await expect(store.loadStep('lost', 0)).resolves.toBeUndefined();
  });

  it('answers a seq stored already with the stored row, the first writer’s', async () => {
    const epoch = await run('twice');
    await records.record(stepRow('twice', 0, '"winner"'), { epoch });
    const answer = await records.recordNow(stepRow('twice', 0, '"loser"'), { epoch });
    expect(answer.output).toBe('"winner"');
    await expect(store.loadStep('twice', 0)).resolves.toMatchObject({ output: '"winner"' });
  });

  if (sqlite) {
    it('waits for a transaction that holds the connection, and writes after it, not inside it', async () => {
      const epoch = await run('behind');
      let answer: StepRow | Promise<StepRow> | undefined;
      await db.database
        .transaction('hold the connection', async (tx) => {
          answer = records.recordNow(stepRow('behind', 0, '"after"'), { epoch });
          expect(answer).toBeInstanceOf(Promise);
          // Rolled back below: had the checkpoint gone into this transaction, it would go too.
          await new RunStore(tx).insertStep(stepRow('behind', 1, '"inside"'), epoch);
          throw new Error('roll back');
        })
        .catch((error: unknown) => expect(String(error)).toContain('roll back'));
      await expect(answer).resolves.toMatchObject({ output: '"after"' });
      const history = await store.loadHistory('behind');
      expect(history.steps.map((s) => [s.seq, s.output])).toEqual([[0, '"after"']]);
    });
  }
});
