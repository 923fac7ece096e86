import { DataSource, type QueryRunner } from 'typeorm';
import { dataSourceOptionsFromUrl } from 'waymark';
import { CheckpointWrites } from '../support/CheckpointWrites';
import { createTestDatabase, type Backend, type TestDatabase } from '../support/databases';
import { FaultProxy } from './support/FaultProxy';
import { HeldBatch, sameRows } from './support/HeldBatch';

/**
 * A connection lost while a group commit is on the wire, on the servers: killed by the server
 * while the batch statement waits on a lock, or cut by the fault proxy after the batch
 * committed and before its answer came back. Either way the store sends the batch again and
 * settles each row as its own, so every run completes; a body may run again only for a row
 * of that batch. (SQLite's counterpart, a driver fault: group-commit-io-error.test.ts.)
 */
describe.each<Backend>(['postgres', 'mariadb'])(
  'a connection lost during a group commit on %s',
  (backend) => {
    let db: TestDatabase;
    let admin: DataSource;

    beforeAll(async () => {
      db = await createTestDatabase(backend);
      admin = await new DataSource(dataSourceOptionsFromUrl(db.url)).initialize();
    });
    afterAll(async () => {
      await admin?.destroy();
      await db?.drop();
    });

    /**
     * The server session running the batch statement, once it waits on the lock of the
     * marked run's row: PostgreSQL's batch share-locks its runs; MariaDB's foreign-key fence
     * reads the run's row under a shared lock.
     */
    async function blockedBatchSession(): Promise<number> {
      const database = new URL(db.url).pathname.slice(1);
      const sql =
        backend === 'postgres'
          ? "SELECT pid AS id FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock' " +
            "AND query LIKE 'INSERT INTO waymark_steps%unnest%'"
          : 'SELECT ID AS id FROM information_schema.PROCESSLIST WHERE DB = ? ' +
            "AND INFO LIKE 'INSERT INTO waymark_steps%fence_run_id), (%'";
      for (;;) {
        const rows = await admin.query<Array<{ id: unknown }>>(sql, [database]);
        if (rows.length > 0) return Number(rows[0].id);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }

    async function killSession(id: number): Promise<void> {
      if (backend === 'mariadb') return void (await admin.query(`KILL ${id}`));
      const [row] = await admin.query<Array<{ killed: boolean }>>(
        'SELECT pg_terminate_backend($1) AS killed',
        [id],
      );
      expect(row.killed).toBe(true);
    }

    /**
     * Holds `runId`'s row locked, as the batch's fence reads it: PostgreSQL's batch share-locks
     * the run row; MariaDB's foreign key reads the run's (id, epoch) index entry.
     */
    async function lockRun(locker: QueryRunner, runId: string): Promise<void> {
      await locker.startTransaction();
      await locker.query(
        backend === 'postgres'
          ? 'SELECT id FROM waymark_runs WHERE id = $1 FOR UPDATE'
          : 'SELECT id FROM waymark_runs FORCE INDEX (waymark_runs_id_epoch) WHERE id = ? FOR UPDATE',
        [runId],
      );
    }

    it('killed while the batch statement runs: the store sends it again on a new connection, and every run completes', async () => {
      const scenario = new HeldBatch('killed');
      const { writes, database } = CheckpointWrites.forUrl(db.url);
      const runtime = await HeldBatch.open({ database }, scenario.hold);
      const locker = admin.createQueryRunner();
      try {
        const calls = await scenario.start(runtime);
        await lockRun(locker, scenario.marked);
        writes.reset();
        scenario.hold.open();
        await killSession(await blockedBatchSession());
        await locker.rollbackTransaction();

        expect(await Promise.all(calls)).toEqual(scenario.results());
        const batch = scenario.batchOf(writes.writes);
        // Sent twice: the statement the kill cut, then the store's retry of it.
        expect(writes.writes.filter((w) => sameRows(w, batch))).toHaveLength(2);
        scenario.expectBodies(batch, 'at most');
        for (const runId of scenario.runIds) {
          const history = await runtime.history(runId);
          expect(history.map((s) => s.status)).toEqual(['completed', 'completed', 'completed']);
        }
      } finally {
        scenario.hold.open();
        if (locker.isTransactionActive) await locker.rollbackTransaction();
        await locker.release();
        await runtime.close();
      }
    });

    it("the batch's answer lost after it committed: the retry finds each row stored as its own, and no step runs again", async () => {
      const scenario = new HeldBatch('lost-ack');
      const url = new URL(db.url);
      const proxy = await FaultProxy.start({
        dialect: backend === 'postgres' ? 'postgres' : 'mysql',
        port: Number(url.port),
      });
      url.port = String(proxy.port);
      const { writes, database } = CheckpointWrites.forUrl(url.toString());
      const runtime = await HeldBatch.open({ database }, scenario.hold);
      try {
        const calls = await scenario.start(runtime);
        let lost = 0;
        const decide = proxy.onCompletion((completion) => {
          const { sql, command } = completion.statement;
          if (lost > 0 || completion.error || completion.status !== 'idle') return undefined;
          if (command === 'prepare' || !isBatchStatement(sql)) return undefined;
          lost++;
          return { kind: 'lost-ack' };
        });
        writes.reset();
        scenario.hold.open();
        try {
          expect(await Promise.all(calls)).toEqual(scenario.results());
        } finally {
          decide.dispose();
        }
        expect(lost).toBe(1);
        const batch = scenario.batchOf(writes.writes);
        expect(writes.writes.filter((w) => sameRows(w, batch)).length).toBeGreaterThanOrEqual(2);
        scenario.expectBodies(batch, 'at most');
        expect(scenario.repeated()).toEqual([]);
      } finally {
        scenario.hold.open();
        await runtime.close();
        await proxy.close();
      }
    });
  },
);

/** PostgreSQL's batch statement, or MySQL's multi-row insert. */
function isBatchStatement(sql: string): boolean {
  const text = sql.trimStart();
  return /^INSERT INTO waymark_steps/.test(text) && /unnest\(|fence_run_id\), \(/.test(text);
}
