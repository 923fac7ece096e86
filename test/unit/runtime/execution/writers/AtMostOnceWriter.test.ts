import { LeaseLostError } from '../../../../../src/errors/LeaseLostError';
import { AtMostOnceWriter } from '../../../../../src/runtime/execution/writers/AtMostOnceWriter';
import { openMemoryStore, type MemoryStore } from '../memoryRun';
import { completedRow, stepWrite } from './writers.fixture';

describe('AtMostOnceWriter', () => {
  let db: MemoryStore;
  beforeEach(async () => (db = await openMemoryStore()));
  afterEach(() => db.close());

  it('stores an intent marker before the body runs, so a crash leaves "started" behind', async () => {
    const run = await db.claimedRun('amo-1');
    const step = stepWrite(run, 0);
    await new AtMostOnceWriter(db.store).begin(step);
    const { steps } = await db.store.loadHistory('amo-1');
    expect(steps).toEqual([expect.objectContaining({ seq: 0, status: 'started', output: null })]);
  });

  it('records the outcome over its intent marker', async () => {
    const run = await db.claimedRun('amo-2');
    const writer = new AtMostOnceWriter(db.store);
    const step = stepWrite(run, 0);
    await writer.begin(step);
    await writer.write(step, completedRow(step));
    const { steps } = await db.store.loadHistory('amo-2');
    expect(steps).toEqual([expect.objectContaining({ status: 'completed', output: '"ok"' })]);
  });

  it('fails with LeaseLostError when the run was taken over between marker and outcome', async () => {
    const run = await db.claimedRun('amo-3');
    const writer = new AtMostOnceWriter(db.store);
    const step = stepWrite(run, 0);
    await writer.begin(step);
    await db.takeOver('amo-3');
    await expect(writer.write(step, completedRow(step))).rejects.toBeInstanceOf(LeaseLostError);
    const { steps } = await db.store.loadHistory('amo-3');
    expect(steps[0].status).toBe('started');
  });
});
