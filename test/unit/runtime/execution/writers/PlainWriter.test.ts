import { StepRecords } from '../../../../../src/runtime/execution/StepRecords';
import { LeaseLostError } from '../../../../../src/errors/LeaseLostError';
import { PlainWriter } from '../../../../../src/runtime/execution/writers/PlainWriter';
import { openMemoryStore, type MemoryStore } from '../memoryRun';
import { completedRow, stepWrite } from './writers.fixture';

describe('PlainWriter', () => {
  let db: MemoryStore;
  beforeEach(async () => (db = await openMemoryStore()));
  afterEach(() => db.close());

  it('stores a completed step in the history a resume loads', async () => {
    const run = await db.claimedRun('plain-1');
    const writer = new PlainWriter(new StepRecords(db.store));
    const step = stepWrite(run, 0);
    expect(writer.begin()).toBeUndefined();
    const row = completedRow(step);
    // SQLite runs the statement on this thread: the row itself comes back, stored already.
    expect(writer.write(step, row)).toBe(row);
    const { steps } = await db.store.loadHistory('plain-1');
    expect(steps).toEqual([
      expect.objectContaining({ seq: 0, status: 'completed', output: '"ok"' }),
    ]);
  });

  it('gives back the outcome stored first when the seq is taken: the first writer wins', async () => {
    const run = await db.claimedRun('plain-2');
    const writer = new PlainWriter(new StepRecords(db.store));
    const step = stepWrite(run, 0);
    await writer.write(step, completedRow(step, '"first"'));
    const stored = await writer.write(step, completedRow(step, '"second"'));
    expect(stored.output).toBe('"first"');
  });

  it('fails with LeaseLostError once another process took the run over, and stores nothing', async () => {
    const run = await db.claimedRun('plain-3');
    await db.takeOver('plain-3');
    const step = stepWrite(run, 0);
    await expect(
      new PlainWriter(new StepRecords(db.store)).write(step, completedRow(step)),
    ).rejects.toBeInstanceOf(LeaseLostError);
    expect((await db.store.loadHistory('plain-3')).steps).toEqual([]);
  });
});
