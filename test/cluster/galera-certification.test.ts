import { createConnection, type Connection } from 'mysql2/promise';
import { DataSource } from 'typeorm';
import { Lifecycle } from '../../src/ground/Lifecycle';
import type { LeaseHolder } from '../../src/ground/ProcessIdentity';
import { dataSourceOptionsFromUrl } from '../../src/store/connection/url/DatabaseUrl';
import { Leases } from '../../src/store/Leases';
import { Migrator } from '../../src/store/migrations/Migrator';
import { newRunRowOf, type RunRow, type StepRow } from '../../src/store/rows';
import { RunStore } from '../../src/store/RunStore';
import { Database } from '../../src/store/connection/Database';
import { isTransientStoreError } from '../../src/store/connection/transientStoreError';
import { RunClaims } from '../../src/store/RunClaims';
import { cluster, createGaleraDatabase, GALERA_PORTS, galeraUrl } from './support/clusterScript';

const ROUNDS = 20;
const LEASE_MS = 30_000;

/** A store of waymark's own, connected through `url` (retries as the runtime's do). */
async function openStore(
  url: string,
): Promise<{ db: Database; store: RunStore; close(): Promise<void> }> {
  const dataSource = await new DataSource(dataSourceOptionsFromUrl(url)).initialize();
  const db = new Database(dataSource, new Lifecycle(), { timeoutMs: 10_000, onRetry: () => {} });
  return { db, store: new RunStore(db), close: () => dataSource.destroy() };
}

/** A lease holder as another host's worker would write it. */
function holder(owner: string): LeaseHolder {
  return { owner, host: `probe-${owner}`, process: `1:${owner}:probe` };
}

function pendingRun(id: string, now: number): RunRow {
  return newRunRowOf({
    id,
    workflow: 'galera-probe',
    version: null,
    args: '[]',
    epoch: 0,
    createdAt: now,
  });
}

/** Until `read` on a node gives `want`: writes on one node reach the others a moment later. */
async function untilApplied(read: () => Promise<unknown>, want: unknown): Promise<void> {
  while ((await read()) !== want) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('claims and fenced writes on a 3-node Galera cluster', () => {
  let drop: () => Promise<void>;
  let database: string;
  const closers: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    await cluster('galera', 'up');
    const created = await createGaleraDatabase();
    database = created.name;
    drop = created.drop;
    const migrated = await new DataSource(
      dataSourceOptionsFromUrl(galeraUrl(database, [1])),
    ).initialize();
    await new Migrator(migrated).migrate();
    await migrated.destroy();
  });

  afterAll(async () => {
    for (const close of closers) await close();
    await drop?.();
  });

  const node = async (n: number): Promise<Connection> => {
    const connection = await createConnection({
      host: '127.0.0.1',
      port: GALERA_PORTS[n],
      user: 'root',
      database,
    });
    closers.push(() => connection.end());
    return connection;
  };

  it('FOR UPDATE SKIP LOCKED is node-local: two nodes hand one run to two claims, and certification rejects the second at COMMIT with a deadlock error waymark retries', async () => {
    const [one, two] = [await node(1), await node(2)];
    const { store, close } = await openStore(galeraUrl(database, [1]));
    closers.push(close);
    await store.insertRun(pendingRun('skip-locked', Date.now()), null);
    await untilApplied(
      async () => ((await two.query('SELECT id FROM waymark_runs'))[0] as unknown[]).length,
      1,
    );
    const find =
      "SELECT id FROM waymark_runs WHERE status = 'pending' ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED";
    const claim =
      "UPDATE waymark_runs SET status = 'running', owner = ?, epoch = epoch + 1 WHERE id = ?";
    await one.query('BEGIN');
    await two.query('BEGIN');
    const [seenByOne] = await one.query(find);
    const [seenByTwo] = await two.query(find);
    // On one server the second SELECT would skip the row the first one locked.
    expect(seenByOne).toEqual([{ id: 'skip-locked' }]);
    expect(seenByTwo).toEqual([{ id: 'skip-locked' }]);
    await one.query(claim, ['worker-on-node-1', 'skip-locked']);
    await two.query(claim, ['worker-on-node-2', 'skip-locked']);
    await one.query('COMMIT');
    const rejected = await two.query('COMMIT').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(rejected).toMatchObject({ code: 'ER_LOCK_DEADLOCK', errno: 1213 });
    expect(isTransientStoreError(rejected)).toBe(true);
    const [rows] = await two.query('SELECT owner, epoch FROM waymark_runs WHERE id = ?', [
      'skip-locked',
    ]);
    expect(rows).toEqual([{ owner: 'worker-on-node-1', epoch: 1 }]);
  });

  it(`workers claiming through different nodes at the same moment: each run goes to exactly one of them (${ROUNDS} races)`, async () => {
    const stores = await Promise.all([
      openStore(galeraUrl(database, [1, 2, 3])),
      openStore(galeraUrl(database, [2, 3, 1])),
      openStore(galeraUrl(database, [3, 1, 2])),
    ]);
    for (const s of stores) closers.push(s.close);
    const queues = stores.map((s) => new RunClaims(s.db));
    const winners: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const runId = `race-${round}`;
      await stores[0].store.insertRun(pendingRun(runId, Date.now()), null);
      // Every node must see the run before the race, or it is no race.
      for (const s of stores)
        await untilApplied(async () => (await s.store.loadRun(runId))?.id, runId);
      const now = Date.now();
      const claimed = await Promise.all(
        queues.map((queue, i) =>
          queue.claim({
            holder: holder(`worker-${i + 1}`),
            token: `token-${round}-${i + 1}`,
            limit: 10,
            now,
            leaseMs: LEASE_MS,
            workflows: ['galera-probe'],
          }),
        ),
      );
      const takers = claimed.flatMap((runs, i) => runs.map(({ row }) => ({ worker: i + 1, row })));
      expect(takers.map((t) => t.row.id)).toEqual([runId]);
      expect(takers[0].row.epoch).toBe(1);
      winners.push(`worker-${takers[0].worker}`);
      const stored = await stores[0].store.loadRun(runId);
      expect(stored).toMatchObject({ owner: winners[round], epoch: 1, status: 'running' });
    }
    process.stderr.write(`Galera claim races won by: ${winners.join(' ')}\n`);
  });

  it('a checkpoint write still open on node 1 when node 2 takes the run over is aborted, not committed under the new owner', async () => {
    const [one, two] = await Promise.all([
      openStore(galeraUrl(database, [1])),
      openStore(galeraUrl(database, [2])),
    ]);
    closers.push(one.close, two.close);
    const now = Date.now();
    await one.store.insertRun(
      {
        ...pendingRun('fenced', now),
        status: 'running',
        owner: 'old',
        epoch: 1,
      },
      LEASE_MS,
    );
    await untilApplied(async () => (await two.store.loadRun('fenced'))?.epoch, 1);
    const step: StepRow = {
      runId: 'fenced',
      seq: 0,
      name: 'charge',
      status: 'completed',
      output: '"late"',
      attempts: 1,
      startedAt: now,
      finishedAt: now,
    };
    const attempt = one.db.transaction('record a step as the old owner', async (tx) => {
      expect(await new RunStore(tx).insertStep(step, 1)).toBe('inserted');
      // The new owner takes the run over through node 2 while this write is open on node 1.
      const run = (await two.store.loadRun('fenced'))!;
      const claim = await new Leases(two.db, two.store).claim(
        run,
        holder('new'),
        'new-token',
        LEASE_MS,
        now,
      );
      expect(claim?.epoch).toBe(2);
      await untilApplied(async () => (await one.store.loadRun('fenced'))?.owner, 'new');
    });
    const error = await attempt.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeDefined();
    expect(isTransientStoreError(error)).toBe(true);
    expect(await one.store.loadStep('fenced', 0)).toBeUndefined();
    expect(await two.store.loadRun('fenced')).toMatchObject({ owner: 'new', epoch: 2 });
  });
});
