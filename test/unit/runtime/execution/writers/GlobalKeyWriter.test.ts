import { realClock } from '../../../../../src/ground/Clock';
import { GlobalKeyClaims } from '../../../../../src/runtime/execution/GlobalKeyClaims';
import { GlobalKeyWriter } from '../../../../../src/runtime/execution/writers/GlobalKeyWriter';
import { openMemoryStore, type MemoryStore } from '../memoryRun';
import { completedRow, stepWrite } from './writers.fixture';

describe('GlobalKeyWriter', () => {
  let db: MemoryStore;
  let writer: GlobalKeyWriter;
  beforeEach(async () => {
    db = await openMemoryStore();
    const claims = new GlobalKeyClaims(db.store, db.stores.keys, realClock, db.lifecycle, {
      self: db.self,
      waitMs: 1000,
    });
    writer = new GlobalKeyWriter(db.stores, claims, realClock);
  });
  afterEach(() => db.close());

  it('lets the first run with a key run its body, and gives a later run its stored result', async () => {
    const first = stepWrite(await db.claimedRun('gk-1'), 0, 'po-submit-7');
    await expect(writer.begin(first)).resolves.toBeUndefined();
    await writer.write(first, completedRow(first, '"receipt-7"'));

    const second = stepWrite(await db.claimedRun('gk-2'), 3, 'po-submit-7');
    await expect(writer.begin(second)).resolves.toBe('"receipt-7"');
  });

  it('gives the key back when the run parks, so another run may take it', async () => {
    const parked = stepWrite(await db.claimedRun('gk-3'), 0, 'refund-9');
    await writer.begin(parked);
    await writer.abandon(parked);
    const next = stepWrite(await db.claimedRun('gk-4'), 0, 'refund-9');
    await expect(writer.begin(next)).resolves.toBeUndefined();
  });

  it('stores the checkpoint and the key in one transaction: a failed step frees the key', async () => {
    const failing = stepWrite(await db.claimedRun('gk-5'), 0, 'mail-1');
    await writer.begin(failing);
    await writer.write(failing, { ...completedRow(failing, '{"message":"x"}'), status: 'failed' });
    const { steps } = await db.store.loadHistory('gk-5');
    expect(steps[0].status).toBe('failed');
    const again = stepWrite(await db.claimedRun('gk-6'), 0, 'mail-1');
    await expect(writer.begin(again)).resolves.toBeUndefined();
  });
});
