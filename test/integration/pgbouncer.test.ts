/**
 * waymark through a real PgBouncer in transaction mode with two server connections per
 * database (`default_pool_size = 2`): what Supabase's pooler, Neon and most managed
 * PostgreSQL offer by default, where a client's consecutive transactions get whichever
 * server connection is free. Every URL here carries `?pgbouncer=true`, except the first
 * test's, which shows what happens without it. To see the whole suite fail without the
 * parameter: `WAYMARK_PGBOUNCER_SUITE_WITHOUT_FLAG=1 npx jest test/integration/pgbouncer.test.ts`.
 *
 * Each concern has a database of its own, so that no worker of one test takes another's runs.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { container as rootContainer, injectable, type DependencyContainer } from 'tsyringe';
import { DataSource, type MigrationInterface } from 'typeorm';
import {
  MigrationLockTimeoutError,
  Step,
  Waymark,
  Workflow,
  dataSourceOptionsFromUrl,
  isStoreUnavailableError,
  isTransactionPoolerError,
  type Logger,
  type RunHandle,
  type StreamEntry,
  type WaymarkRuntime,
} from 'waymark';
import { Migrator, waymarkMigrations } from 'waymark/migrations';
import { StagedWorkflow } from '../crash/fixtures/StagedWorkflow';
import { readStepLedger, STEP_LEDGER_PATH } from '../crash/fixtures/StepLedger';
import type { LedgerEntry, LedgerResult } from '../crash/fixtures/LedgerWorkflow';
import { QueueWorker } from '../crash/support/QueueWorker';
import { WorkerProcess } from '../crash/support/WorkerProcess';
import { Approvals, StepLog } from '../support/fixtures/Approvals';
import { Narrator, NarratorScript } from '../support/fixtures/Narrator';
import { JobLog, QueuedJobs } from '../support/fixtures/QueuedJobs';
import { createTestDatabase, type TestDatabase } from '../support/databases';
import { Pgbouncer } from '../support/Pgbouncer';

const POOL_SIZE = 2;
const RUNS = 20;
const STEPS = 20;
const FLAG: Record<string, string> = process.env.WAYMARK_PGBOUNCER_SUITE_WITHOUT_FLAG
  ? {}
  : { pgbouncer: 'true' };
const MIGRATIONS = waymarkMigrations.map((M) => new M().name!);

/** Every step body run in this process, as `n:i`. */
const executed: string[] = [];

@injectable()
class PooledSums {
  @Workflow({ name: 'pooled.sum' })
  async sum(n: number, steps: number): Promise<number> {
    let total = 0;
    for (let i = 0; i < steps; i++) total += await this.add(n, i);
    return total;
  }

  @Step()
  async add(n: number, i: number): Promise<number> {
    executed.push(`${n}:${i}`);
    return n * 100 + i;
  }
}

const expectedSum = (n: number): number => STEPS * n * 100 + (STEPS * (STEPS - 1)) / 2;

/**
 * For the runtime that is meant to fail: a lease renewal through it, should a slow machine
 * let one fall due, fails the same way and would print a warning.
 */
const silent: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};

async function open(url: string): Promise<DataSource> {
  return new DataSource(dataSourceOptionsFromUrl(url)).initialize();
}

describe(`waymark through PgBouncer in transaction mode, default_pool_size = ${POOL_SIZE}`, () => {
  let bouncer: Pgbouncer;
  let dir: string;
  const databases: TestDatabase[] = [];
  const children: WorkerProcess[] = [];
  /** A new database on the PostgreSQL server, and its URL through the pooler. */
  const database = async (parameters = FLAG): Promise<{ db: TestDatabase; url: string }> => {
    const db = await createTestDatabase('postgres');
    databases.push(db);
    return { db, url: bouncer.url(db.url, parameters) };
  };

  // One runtime (and its worker) for the in-process tests, on a database of their own.
  let mainDb: TestDatabase;
  let runtime: WaymarkRuntime;
  let scope: DependencyContainer;
  let n = 0;
  const id = (): string => `pooled-${++n}-${Date.now()}`;

  beforeAll(async () => {
    mainDb = await createTestDatabase('postgres');
    databases.push(mainDb);
    bouncer = await Pgbouncer.start(mainDb.url, { poolSize: POOL_SIZE });
    dir = mkdtempSync(join(tmpdir(), 'waymark-pgbouncer-suite-'));
    scope = rootContainer.createChildContainer();
    scope.registerInstance(StepLog, new StepLog());
    scope.registerInstance(JobLog, new JobLog());
    scope.registerInstance(NarratorScript, new NarratorScript());
    runtime = await Waymark.create({ database: bouncer.url(mainDb.url, FLAG), container: scope });
    runtime.queue('jobs', { concurrency: 2 });
    runtime.startWorker({ concurrency: 8, pollInterval: '20ms' });
  });

  afterAll(async () => {
    for (const child of children) child.kill();
    await Promise.all(children.map((c) => c.exited.catch(() => undefined)));
    await runtime?.close({ grace: 0 });
    await bouncer?.stop();
    await Promise.all(databases.map((db) => db.drop()));
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('without pgbouncer=true, the first concurrent runs fail with an error naming pgbouncer=true, not as an outage', async () => {
    const { url: withFlag, db } = await database({ pgbouncer: 'true' });
    await (await Waymark.create({ database: withFlag })).close();
    // One commit per write: every run's statements go out at once on connections of their own,
    // as they do in a service whose load spreads over its pool. (Group commit sends the runs'
    // writes of a turn as one statement, so these few runs might meet no other's statement.)
    const bare = await Waymark.create({
      database: bouncer.url(db.url),
      logger: silent,
      groupCommit: false,
    });
    try {
      const settled = await Promise.allSettled(
        Array.from({ length: RUNS }, (_, i) => bare.run(PooledSums, 'sum', [i, STEPS])),
      );
      const failures = settled
        .filter((s): s is PromiseRejectedResult => s.status === 'rejected')
        .map((s) => s.reason as Error);
      // More clients than the pooler has server connections prepared the same statement:
      // at least one of them found it already there.
      expect(failures.length).toBeGreaterThan(0);
      for (const failure of failures) {
        expect(isTransactionPoolerError(failure)).toBe(true);
        expect(isStoreUnavailableError(failure)).toBe(false);
        expect(failure.message).toMatch(
          /^waymark could not .+: (prepared statement "wm_[0-9a-f]+" (already exists|does not exist)|unnamed prepared statement does not exist|bind message supplies .+)\. That is the sign of a transaction-mode pooler .+: add pgbouncer=true to the database URL/,
        );
      }
    } finally {
      await bare.close({ grace: 0 });
    }
  });

  it('migrations are applied through the pooler', async () => {
    await expect(new Migrator(runtime.dataSource).pending()).resolves.toEqual([]);
    const rows = await runtime.dataSource.query<Array<{ name: string }>>(
      'SELECT name FROM waymark_migrations ORDER BY name',
    );
    expect(rows.map((r) => r.name)).toEqual([...MIGRATIONS].sort());
  });

  it('a migration holding the lock makes another wait, or time out, and each migration is applied once', async () => {
    const { db, url } = await database();
    const direct = await open(db.url);
    const [holder, waiter] = [await open(url), await open(url)];
    try {
      const blocking = blockingMigration();
      const holding = new Migrator(holder, [...waymarkMigrations, blocking.Migration]).migrate();
      await blocking.held;

      class M9998Later implements MigrationInterface {
        name = 'M9998Later';
        async up(): Promise<void> {
          throw new Error('applied without the lock');
        }
        async down(): Promise<void> {}
      }
      const impatient = new Migrator(waiter, [...waymarkMigrations, M9998Later], {
        lockTimeoutMs: 200,
      });
      const timedOut = await impatient.migrate().catch((e: unknown) => e);
      expect(timedOut).toBeInstanceOf(MigrationLockTimeoutError);
      expect(timedOut).toMatchObject({ lock: 'pg_advisory_xact_lock(73615042)', waitedMs: 200 });

      // A migrator with the default timeout waits for the holder's transaction to end.
      const patient = new Migrator(waiter).migrate();
      await eventually(async () => (await advisoryLocks(direct, 'awaited')) === 1);
      blocking.release();
      await expect(holding).resolves.toEqual([...MIGRATIONS, 'M9999HoldTheLock']);
      await expect(patient).resolves.toEqual([]);
      const [{ count }] = await direct.query<Array<{ count: number }>>(
        'SELECT count(*)::int AS count FROM waymark_migrations',
      );
      expect(count).toBe(MIGRATIONS.length + 1);
      // The lock ended with its transaction: no server connection the pooler keeps holds it.
      expect(await advisoryLocks(direct, 'held or awaited')).toBe(0);
    } finally {
      await Promise.all([holder.destroy(), waiter.destroy(), direct.destroy()]);
    }
  });

  it('two processes migrating one database at once through the pooler apply each migration once', async () => {
    const { db, url } = await database();
    const barrier = join(dir, 'migrate-go');
    const racers = [0, 1].map(() =>
      track(WorkerProcess.start('test/crash/fixtures/migrateWorker.ts', [url, barrier])),
    );
    await Promise.all(racers.map((r) => r.waitForLine((l) => l.startsWith('ready '))));
    writeFileSync(barrier, '');
    await Promise.all(racers.map((r) => r.succeeded()));
    const applied = racers.flatMap((r) => {
      const line = r.lines.find((l) => l.startsWith('applied '))!;
      return JSON.parse(line.slice('applied '.length)) as string[];
    });
    expect([...applied].sort()).toEqual([...MIGRATIONS].sort());
    const direct = await open(db.url);
    try {
      await expect(new Migrator(direct).pending()).resolves.toEqual([]);
    } finally {
      await direct.destroy();
    }
  });

  it(`${RUNS} concurrent runs of ${STEPS} steps all complete with the right results`, async () => {
    executed.length = 0;
    const results = await Promise.all(
      Array.from({ length: RUNS }, (_, i) =>
        runtime.start(PooledSums, 'sum', [i, STEPS]).then(async (handle) => ({
          handle,
          result: await handle.result(),
        })),
      ),
    );
    expect(results.map((r) => r.result)).toEqual(
      Array.from({ length: RUNS }, (_, i) => expectedSum(i)),
    );
    for (const { handle } of results) {
      const history = await runtime.history(handle.runId, { limit: 100 });
      expect(history.map((s) => [s.seq, s.name, s.status])).toEqual(
        Array.from({ length: STEPS }, (_, seq) => [seq, 'add', 'completed']),
      );
    }
    expect([...executed].sort()).toEqual(
      Array.from({ length: RUNS }, (_, i) => Array.from({ length: STEPS }, (_, s) => `${i}:${s}`))
        .flat()
        .sort(),
    );
  }, 90_000);

  it('a host list naming a host that is down before the pooler connects through the pooler', async () => {
    const { db } = await database();
    const down = await unusedPort();
    const pooler = `127.0.0.1:${bouncer.port}`;
    const url = bouncer.url(db.url, FLAG).replace(pooler, `127.0.0.1:${down},${pooler}`);
    const listed = await Waymark.create({ database: url });
    try {
      const results = await Promise.all(
        Array.from({ length: 5 }, (_, i) => listed.run(PooledSums, 'sum', [i, STEPS])),
      );
      expect(results).toEqual(Array.from({ length: 5 }, (_, i) => expectedSum(i)));
    } finally {
      await listed.close();
    }
  });

  it('a run waiting for a signal resumes when runtime.signal delivers it', async () => {
    const log = scope.resolve(StepLog);
    const handle = await runtime.start(Approvals, 'request', [id()]);
    await eventually(async () => (await handle.status()) === 'waiting');
    await runtime.signal(handle.runId, 'approval', { approved: true, by: 'ana' });
    await expect(handle.result()).resolves.toBe('approved by ana');
    expect(log.count(handle.runId, 'draft')).toBe(1);
    expect(log.count(handle.runId, 'finish')).toBe(1);
  });

  it("a named queue's workers run every queued run, never more at once than its concurrency", async () => {
    const log = scope.resolve(JobLog);
    const handles: Array<RunHandle<string>> = [];
    for (let i = 0; i < 8; i++) handles.push(await runtime.start(QueuedJobs, 'job', ['q', i, 20]));
    const results = await Promise.all(handles.map((h) => h.result()));
    expect(results).toEqual(Array.from({ length: 8 }, (_, i) => `q-${i} done`));
    expect([...log.started].sort()).toEqual(Array.from({ length: 8 }, (_, i) => `q-${i}`).sort());
    expect(log.maxActive).toBeLessThanOrEqual(2);
  });

  it('a durable stream is read whole, in order, while its run writes it', async () => {
    const handle = await runtime.start(Narrator, 'narrate', [id(), 300]);
    const entries: Array<StreamEntry<string>> = [];
    for await (const entry of runtime.readStream<string>(handle.runId, 'tokens')) {
      entries.push(entry);
    }
    await expect(handle.result()).resolves.toBe(300);
    expect(entries.map((e) => e.offset)).toEqual([...Array(300).keys()]);
    expect(entries.map((e) => e.chunk)).toEqual([...Array(300).keys()].map((i) => `t${i}`));
  });

  it('a process SIGKILLed mid-run through the pooler is resumed by another, no completed step run twice', async () => {
    const { url } = await database();
    const ledger = join(dir, 'sigkill.ledger');
    const args = [url, ledger, 'order-1', '--default-options'];
    const first = track(WorkerProcess.start('test/crash/fixtures/ledgerWorker.ts', args));
    await first.waitForLine((line) => line === 'completed 2 priceLines');
    first.kill();
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
    const completedBefore = first.lines
      .filter((l) => l.startsWith('completed '))
      .map((l) => l.split(' ')[2]);

    const second = track(
      WorkerProcess.start('test/crash/fixtures/ledgerWorker.ts', args, { timeoutMs: 60_000 }),
    );
    const resultLine = await second.waitForLine((l) => l.startsWith('result '));
    await second.succeeded();
    const result = JSON.parse(resultLine.slice('result '.length)) as LedgerResult;
    expect(second.lines.filter((l) => /^resumed \d+$/.test(l))).toHaveLength(1);
    expect(Object.keys(result.committedBy)).toHaveLength(10);
    expect(result.outcome.trail).toHaveLength(10);

    const entries = readFileSync(ledger, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as LedgerEntry);
    for (const step of completedBefore) {
      expect(entries.filter((e) => e.step === step)).toEqual([
        expect.objectContaining({ step, pid: first.pid }),
      ]);
      expect(result.committedBy[step]).toBe(first.pid);
    }
    // Every step ran at least once; only one in flight at the kill may have run twice.
    for (const step of Object.keys(result.committedBy)) {
      expect(entries.filter((e) => e.step === step).length).toBeGreaterThanOrEqual(1);
    }
  }, 90_000);

  it('a fleet of 3 worker processes shares one queue through the pooler, each step run once', async () => {
    const { url } = await database();
    const ledger = join(dir, 'fleet.ledger');
    const barrier = join(dir, 'fleet-go');
    const producerScope = rootContainer.createChildContainer();
    producerScope.register(STEP_LEDGER_PATH, { useValue: join(dir, 'unused.ledger') });
    const producer = await Waymark.create({ database: url, container: producerScope });
    const workers: QueueWorker[] = [];
    try {
      const handles = [];
      for (let i = 0; i < 30; i++) {
        handles.push(
          await producer.start(StagedWorkflow, 'short', [`fleet-${i}`, 4, 5], { queue: true }),
        );
      }
      for (let i = 0; i < 3; i++) {
        const worker = QueueWorker.start(url, ledger, {
          concurrency: 4,
          pollInterval: '50ms',
          barrier,
        });
        track(worker.child);
        workers.push(worker);
      }
      await Promise.all(workers.map((w) => w.ready()));
      writeFileSync(barrier, '');
      const results = await Promise.all(handles.map((h) => h.result()));
      expect(results.map((r) => r.label)).toEqual(handles.map((_, i) => `fleet-${i}`));
      const exits = await Promise.all(workers.map((w) => w.terminate()));
      expect(exits.map(({ code, signal }) => ({ code, signal }))).toEqual(
        workers.map(() => ({ code: 0, signal: null })),
      );

      const entries = readStepLedger(ledger);
      const runsOf = new Map(handles.map((h) => [h.runId, 0]));
      const executions = new Map<string, number>();
      for (const { runId, step } of entries) {
        const key = `${runId} ${step}`;
        executions.set(key, (executions.get(key) ?? 0) + 1);
        runsOf.set(runId, (runsOf.get(runId) ?? 0) + 1);
      }
      expect(entries).toHaveLength(30 * 4);
      expect([...executions.values()].every((count) => count === 1)).toBe(true);
      expect([...runsOf.values()].every((count) => count === 4)).toBe(true);
      expect(new Set(entries.map((e) => e.pid)).size).toBeGreaterThan(1);
    } finally {
      await producer.close({ grace: 0 });
    }
  }, 90_000);

  function track(child: WorkerProcess): WorkerProcess {
    children.push(child);
    return child;
  }
});

/** A migration that holds its Migrator, and so the migration lock, until released. */
function blockingMigration() {
  let entered!: () => void;
  let release!: () => void;
  const held = new Promise<void>((resolve) => (entered = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  class M9999HoldTheLock implements MigrationInterface {
    name = 'M9999HoldTheLock';
    async up(): Promise<void> {
      entered();
      await released;
    }
    async down(): Promise<void> {}
  }
  return { Migration: M9999HoldTheLock, held, release };
}

/** Advisory locks of the database `direct` is connected to (directly, not through the pooler). */
async function advisoryLocks(
  direct: DataSource,
  which: 'awaited' | 'held or awaited',
): Promise<number> {
  const [{ count }] = await direct.query<Array<{ count: number }>>(
    "SELECT count(*)::int AS count FROM pg_locks WHERE locktype = 'advisory' " +
      'AND database = (SELECT oid FROM pg_database WHERE datname = current_database())' +
      (which === 'awaited' ? ' AND NOT granted' : ''),
  );
  return count;
}

/** A port on 127.0.0.1 that nothing listens on (it did a moment ago, for the asking). */
function unusedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** Resolves once `check` answers true; polled every 10 ms, for at most 5 s. */
async function eventually(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`never came true: ${check.toString()}`);
}
