import { StepRecords } from '../../../../../src/runtime/execution/StepRecords';
import { LeaseLostError } from '../../../../../src/errors/LeaseLostError';
import { realClock } from '../../../../../src/ground/Clock';
import { StepReplay } from '../../../../../src/runtime/execution/StepReplay';
import {
  CommittedWithBody,
  TransactionalWriter,
} from '../../../../../src/runtime/execution/writers/TransactionalWriter';
import { openMemoryStore, type MemoryStore } from '../memoryRun';
import { stepWrite } from './writers.fixture';

describe('TransactionalWriter', () => {
  let db: MemoryStore;
  let writer: TransactionalWriter;
  let effects: number;
  beforeEach(async () => {
    db = await openMemoryStore();
    effects = 0;
    const replay = new StepReplay(db.codec, db.events);
    writer = new TransactionalWriter(
      db.stores,
      new StepRecords(db.store),
      replay,
      db.codec,
      realClock,
      () => effects++,
    );
  });
  afterEach(() => db.close());

  it('commits the checkpoint in the transaction the body ran in', async () => {
    const step = stepWrite(await db.claimedRun('tx-1'), 0);
    const committed = await writer.attempt(step, 1, (manager) => {
      expect(manager).toBeDefined();
      return Promise.resolve({ orderId: 7 });
    });
    expect(committed).toBeInstanceOf(CommittedWithBody);
    expect(committed.value).toEqual({ orderId: 7 });
    expect(effects).toBe(1);
    const { steps } = await db.store.loadHistory('tx-1');
    expect(steps).toEqual([expect.objectContaining({ seq: 0, status: 'completed' })]);
  });

  it('stores nothing when the body fails: its writes and the checkpoint roll back together', async () => {
    const step = stepWrite(await db.claimedRun('tx-2'), 0);
    await expect(
      writer.attempt(step, 1, () => Promise.reject(new Error('constraint violated'))),
    ).rejects.toThrow('constraint violated');
    expect((await db.store.loadHistory('tx-2')).steps).toEqual([]);
  });

  it('fails with LeaseLostError when another process holds the run, and commits nothing', async () => {
    const step = stepWrite(await db.claimedRun('tx-3'), 0);
    await db.takeOver('tx-3');
    await expect(writer.attempt(step, 1, () => Promise.resolve(1))).rejects.toBeInstanceOf(
      LeaseLostError,
    );
    expect((await db.store.loadHistory('tx-3')).steps).toEqual([]);
  });
});
