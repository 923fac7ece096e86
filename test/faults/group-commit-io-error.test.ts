import { StoreUnavailableError, type WaymarkRuntime } from 'waymark';
import { CheckpointWrites } from '../support/CheckpointWrites';
import { createTestDatabase, type TestDatabase } from '../support/databases';
import { RecordingLogger } from '../support/RecordingLogger';
import { StepHold } from '../support/StepHold';
import { HeldBatch, HeldBatchFlow } from './support/HeldBatch';
import { injectSqliteFaults } from './support/sqliteStatementFaults';

/**
 * SQLite has no connection to kill: the fault is the driver's, an I/O error on the COMMIT of
 * the batch's transaction (one of the faults test/faults/sim/sqliteFaults.ts injects in the
 * simulator). It is no outage to wait out, so the batch fails: every step whose row it held
 * stops its run, and a restarted runtime executes exactly those steps again.
 */
describe('an I/O error on the COMMIT of a group commit on SQLite', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase('sqlite-file');
  });
  afterAll(async () => {
    await db?.drop();
  });

  it("fails the steps of that batch alone; after a restart, only that batch's steps run again", async () => {
    const scenario = new HeldBatch('io-error');
    const { writes, database } = CheckpointWrites.forUrl(db.url);
    // Small batches, so that runs whose rows the failed one did not hold go on.
    const runtime = await HeldBatch.open({ database, groupCommit: { maxRows: 4 } }, scenario.hold);
    let armed = false;
    let holdsMarked = false;
    const faults = injectSqliteFaults((sql, params) => {
      if (/^BEGIN/i.test(sql)) holdsMarked = false;
      else if (/^INSERT INTO waymark_steps/i.test(sql) && params.includes(scenario.marked)) {
        holdsMarked = true;
      } else if (armed && holdsMarked && /^COMMIT/i.test(sql)) {
        armed = false;
        return { code: 'SQLITE_IOERR', message: 'disk I/O error' };
      }
      return undefined;
    });
    let restarted: WaymarkRuntime | undefined;
    try {
      const calls = await scenario.start(runtime);
      writes.reset();
      armed = true;
      scenario.hold.open();
      const first = await Promise.all(calls);
      faults.dispose();
      const batch = scenario.batchOf(writes.writes);
      const stopped = new Set(batch.runIds);
      expect(stopped.size).toBeLessThan(scenario.runIds.length);
      // Every run whose row the failed COMMIT held stopped with it; the others completed.
      for (const [i, runId] of scenario.runIds.entries()) {
        if (!stopped.has(runId)) expect(first[i]).toBe(scenario.results()[i]);
        else {
          expect(first[i]).toBeInstanceOf(StoreUnavailableError);
          expect(String(first[i])).toMatch(/steps in one commit: disk I\/O error/);
        }
      }
      await runtime.close();

      // The stopped runs are the closed runtime's: taken over at once, by calls that resume
      // them here, so the runtime that resumes them says nothing about them.
      const log = new RecordingLogger([]);
      restarted = await HeldBatch.open({ database: db.url, logger: log }, new StepHold('none', 0));
      const again = await Promise.all(
        scenario.keys.map((key) => restarted!.run(HeldBatchFlow, 'run', [key])),
      );
      expect(again).toEqual(scenario.results());
      await restarted.close();
      expect(log.abandoned()).toEqual([]);
      scenario.expectBodies(batch, 'exactly');
    } finally {
      faults.dispose();
      scenario.hold.open();
      await runtime.close();
      await restarted?.close();
    }
  });
});
