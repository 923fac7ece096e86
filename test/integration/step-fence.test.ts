import { DataSource } from 'typeorm';
import { LeaseLostError, dataSourceOptionsFromUrl } from 'waymark';
import { Lifecycle } from '../../src/ground/Lifecycle';
import type { LeaseHolder } from '../../src/ground/ProcessIdentity';
import { Leases } from '../../src/store/Leases';
import { Migrator } from '../../src/store/migrations/Migrator';
import { waymarkMigrations } from '../../src/store/migrations';
import { newRunRowOf } from '../../src/store/rows';
import { RunStore } from '../../src/store/RunStore';
import { Database } from '../../src/store/connection/Database';
import { completedStepRow as stepRow } from '../support/completedStepRow';
import { ALL_BACKENDS, createTestDatabase, type TestDatabase } from '../support/databases';

const LEASE_MS = 30_000;

function holder(owner: string): LeaseHolder {
  return { owner, host: `host-${owner}`, process: `1:${owner}:test` };
}

// The one write of every step is fenced by the run's epoch: once another process claims the
// run, the old holder's writes store nothing, whichever way the dialect fences (an
// INSERT … SELECT, or on MySQL/MariaDB a foreign key that the claim's epoch bump clears).
describe.each(ALL_BACKENDS)('step checkpoints fenced by the claim on %s', (backend) => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let database: Database;
  let store: RunStore;
  let leases: Leases;

  beforeAll(async () => {
    db = await createTestDatabase(backend);
    dataSource = await new DataSource(dataSourceOptionsFromUrl(db.url)).initialize();
    await new Migrator(dataSource).migrate();
    database = new Database(dataSource, new Lifecycle(), { timeoutMs: 10_000, onRetry: () => {} });
    store = new RunStore(database);
    leases = new Leases(database, store);
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await db?.drop();
  });

  /** A run claimed by `owner`, at the epoch its claim returned. */
  async function claimedRun(runId: string, owner: string): Promise<number> {
    const now = Date.now();
    await store.insertRun(
      newRunRowOf({
        id: runId,
        workflow: 'fence',
        version: null,
        args: '[]',
        epoch: 0,
        createdAt: now,
      }),
      null,
    );
    return reclaim(runId, owner);
  }

  async function reclaim(runId: string, owner: string): Promise<number> {
    const now = Date.now();
    const run = (await store.loadRun(runId))!;
    const claim = await leases.claim(run, holder(owner), `${owner}-token`, LEASE_MS, now);
    expect(claim).toBeDefined();
    return claim!.epoch;
  }

  it('the old holder stores nothing after a takeover, not even over a seq the new holder wrote', async () => {
    const old = await claimedRun('taken-over', 'old');
    await expect(store.insertStep(stepRow('taken-over', 0, '"old 0"'), old)).resolves.toBe(
      'inserted',
    );
    const current = await reclaim('taken-over', 'new');
    expect(current).toBe(old + 1);

    await expect(store.insertStep(stepRow('taken-over', 1, '"old 1"'), old)).rejects.toBeInstanceOf(
      LeaseLostError,
    );
    await expect(store.loadStep('taken-over', 1)).resolves.toBeUndefined();
    // seq 0 is stored: the old holder must still be refused, not handed that outcome.
    await expect(
      store.insertStep(stepRow('taken-over', 0, '"old 0 again"'), old),
    ).rejects.toBeInstanceOf(LeaseLostError);

    await expect(store.insertStep(stepRow('taken-over', 0, '"new 0"'), current)).resolves.toBe(
      'duplicate',
    );
    await expect(store.insertStep(stepRow('taken-over', 1, '"new 1"'), current)).resolves.toBe(
      'inserted',
    );
    const history = await store.loadHistory('taken-over');
    expect(history.steps.map((s) => [s.seq, s.output])).toEqual([
      [0, '"old 0"'],
      [1, '"new 1"'],
    ]);
  });

  it('a write for a run that does not exist is refused as a lost lease', async () => {
    await expect(store.insertStep(stepRow('no-such-run', 0, '1'), 1)).rejects.toBeInstanceOf(
      LeaseLostError,
    );
  });

  it('a run that was fenced several times keeps every step and takes the current holder’s writes', async () => {
    let epoch = await claimedRun('many-claims', 'w0');
    for (let seq = 0; seq < 5; seq++) {
      await expect(store.insertStep(stepRow('many-claims', seq, String(seq)), epoch)).resolves.toBe(
        'inserted',
      );
      epoch = await reclaim('many-claims', `w${seq + 1}`);
    }
    const history = await store.loadHistory('many-claims');
    expect(history.steps.map((s) => s.seq)).toEqual([0, 1, 2, 3, 4]);
  });

  if (backend === 'mariadb' || backend === 'postgres') {
    it('a checkpoint write still open when another process claims the run holds the claim back until it commits', async () => {
      const old = await claimedRun('open-write', 'old');
      let claimed = false;
      let claim: Promise<unknown> | undefined;
      await database.transaction('record a step as the old holder', async (tx) => {
        expect(await new RunStore(tx).insertStep(stepRow('open-write', 0, '"old"'), old)).toBe(
          'inserted',
        );
        const run = (await store.loadRun('open-write'))!;
        const now = Date.now();
        claim = leases.claim(run, holder('new'), 'new-token', LEASE_MS, now);
        void claim.then(() => (claimed = true));
        // The claim waits on the row the open write's fence holds.
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(claimed).toBe(false);
      });
      await claim;
      const history = await store.loadHistory('open-write');
      expect(history.steps.map((s) => s.output)).toEqual(['"old"']);
      await expect(store.insertStep(stepRow('open-write', 1, '"old"'), old)).rejects.toBeInstanceOf(
        LeaseLostError,
      );
    });
  }
});

describe('M0011FenceStepsByKey on a MariaDB database that already holds steps', () => {
  let db: TestDatabase;
  let dataSource: DataSource;

  beforeAll(async () => {
    db = await createTestDatabase('mariadb');
    dataSource = await new DataSource(dataSourceOptionsFromUrl(db.url)).initialize();
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await db?.drop();
  });

  it('keeps the stored steps, and fences the writes that follow', async () => {
    const before = waymarkMigrations.filter((m) => new m().name !== 'M0011FenceStepsByKey');
    expect(before).toHaveLength(waymarkMigrations.length - 1);
    await new Migrator(dataSource, before).migrate();
    const database = new Database(dataSource, new Lifecycle(), {
      timeoutMs: 10_000,
      onRetry: () => {},
    });
    const store = new RunStore(database);
    const now = Date.now();
    await store.insertRun(
      newRunRowOf({
        id: 'old',
        workflow: 'fence',
        version: null,
        args: '[]',
        epoch: 0,
        createdAt: now,
      }),
      null,
    );
    const leases = new Leases(database, store);
    const claim = async (owner: string): Promise<number> => {
      const run = (await store.loadRun('old'))!;
      return (await leases.claim(run, holder(owner), `${owner}-t`, LEASE_MS, now))!.epoch;
    };
    const first = await claim('before');
    // Written by the statement of the version before M0011.
    await dataSource.query(
      'INSERT INTO waymark_steps (run_id, seq, name, status, output, attempts, started_at) ' +
        "VALUES ('old', 0, 'step-0', 'completed', '\"kept\"', 1, ?)",
      [now],
    );

    await new Migrator(dataSource).migrate();
    await expect(store.insertStep(stepRow('old', 1, '"new"'), first)).resolves.toBe('inserted');
    const second = await claim('after');
    await expect(store.insertStep(stepRow('old', 2, '"stale"'), first)).rejects.toBeInstanceOf(
      LeaseLostError,
    );
    await expect(store.insertStep(stepRow('old', 2, '"current"'), second)).resolves.toBe(
      'inserted',
    );
    const history = await store.loadHistory('old');
    expect(history.steps.map((s) => s.output)).toEqual(['"kept"', '"new"', '"current"']);
  });
});
