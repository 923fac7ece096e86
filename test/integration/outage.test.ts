import Database from 'better-sqlite3';
import { container as rootContainer, injectable, type DependencyContainer } from 'tsyringe';
import { DataSource, type DataSourceOptions } from 'typeorm';
import {
  Step,
  StoreUnavailableError,
  Waymark,
  Workflow,
  WorkflowContext,
  dataSourceOptionsFromUrl,
  type Duration,
  type WaymarkEvents,
  type WaymarkRuntime,
} from 'waymark';
import { createTestDatabase, type Backend, type TestDatabase } from '../support/databases';
import { RecordingLogger } from '../support/RecordingLogger';
import { BodyCounts, SlowPipeline } from '../support/fixtures/SlowPipeline';

/** Holds step 2's first execution until the test has taken the database away. */
class Gate {
  private openGate!: () => void;
  private arrive!: () => void;
  private readonly opened = new Promise<void>((resolve) => (this.openGate = resolve));
  readonly reached = new Promise<void>((resolve) => (this.arrive = resolve));
  private passed = false;

  async pass(): Promise<void> {
    if (this.passed) return;
    this.passed = true;
    this.arrive();
    await this.opened;
  }

  open(): void {
    this.openGate();
  }
}

@injectable()
class GatedPipeline {
  constructor(
    private readonly ctx: WorkflowContext,
    private readonly counts: BodyCounts,
    private readonly gate: Gate,
  ) {}

  @Workflow({ name: 'gated-pipeline', id: (id: string) => `gated-pipeline-${id}` })
  async run(_id: string, steps: number): Promise<number> {
    let total = 0;
    for (let i = 0; i < steps; i++) total += await this.stage(i);
    return total;
  }

  @Step()
  async stage(i: number): Promise<number> {
    this.counts.add(this.ctx.runId, i);
    if (i === 2) await this.gate.pass();
    return i;
  }
}

const STEPS = 12;
const TOTAL = (STEPS * (STEPS - 1)) / 2;

/** Kills, from the server side, every connection the runtime holds to its database. */
async function killConnections(
  admin: DataSource,
  backend: Backend,
  database: string,
): Promise<number> {
  if (backend === 'mariadb') {
    const rows = await admin.query<Array<{ ID: number }>>(
      'SELECT ID FROM information_schema.PROCESSLIST WHERE DB = ?',
      [database],
    );
    for (const { ID } of rows) await admin.query(`KILL ${Number(ID)}`).catch(() => undefined);
    return rows.length;
  }
  const rows = await admin.query<unknown[]>(
    'SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
    [database],
  );
  return rows.length;
}

describe.each(['mariadb', 'postgres'] as const)('a database outage on %s', (backend) => {
  let db: TestDatabase;
  let admin: DataSource;
  let scope: DependencyContainer;
  let counts: BodyCounts;
  let name: string;
  let user: string;
  let url: string;
  const open = (
    options: { storeRetryTimeout?: Duration; logger?: RecordingLogger } = {},
  ): Promise<WaymarkRuntime> =>
    Waymark.create({ database: url, container: scope, workerId: `outage-${backend}`, ...options });

  beforeAll(async () => {
    db = await createTestDatabase(backend);
    name = db.url.slice(db.url.lastIndexOf('/') + 1);
    admin = new DataSource({
      ...dataSourceOptionsFromUrl(db.url),
      database: backend === 'mariadb' ? 'test' : 'postgres',
    } as DataSourceOptions);
    await admin.initialize();
    user = `wm_${name.slice(-6)}`;
    url = db.url;
    if (backend === 'mariadb') {
      // A user of its own, so locking it out takes only this test's database down.
      await admin.query(`CREATE USER '${user}'@'%' IDENTIFIED BY 'outage'`);
      await admin.query(`GRANT ALL ON ${name}.* TO '${user}'@'%'`);
      url = db.url.replace('mysql://root@', `mysql://${user}:outage@`);
    }
  });
  afterAll(async () => {
    if (backend === 'mariadb') await admin.query(`DROP USER IF EXISTS '${user}'@'%'`);
    await admin.destroy();
    await db.drop();
  });
  beforeEach(() => {
    scope = rootContainer.createChildContainer();
    counts = new BodyCounts();
    scope.registerInstance(BodyCounts, counts);
  });

  it('connections killed mid-run are replaced; the run completes and no step runs twice', async () => {
    const runtime = await open();
    try {
      const id = `kill-${Date.now()}`;
      const done = scope.resolve(SlowPipeline).run(id, STEPS);
      let killed = 0;
      for (let round = 0; round < 4; round++) {
        await new Promise((resolve) => setTimeout(resolve, 60));
        killed += await killConnections(admin, backend, name);
      }
      await expect(done).resolves.toBe(TOTAL);
      expect(killed).toBeGreaterThan(0);
      expect(counts.of(`slow-pipeline-${id}`)).toEqual(Array(STEPS).fill(1));
      expect((await runtime.history(`slow-pipeline-${id}`)).map((s) => s.status)).toEqual(
        Array(STEPS).fill('completed'),
      );
    } finally {
      await runtime.close({ grace: 100 });
    }
  });

  it('an outage longer than storeRetryTimeout leaves the run resumable, with an error naming the cause', async () => {
    const runtime = await open({ storeRetryTimeout: '300ms' });
    const retries: Array<WaymarkEvents['store.retrying']> = [];
    runtime.on('store.retrying', (retry) => retries.push(retry));
    const id = `long-${Date.now()}`;
    try {
      const done = scope
        .resolve(SlowPipeline)
        .run(id, STEPS)
        .catch((e: unknown) => e);
      await new Promise((resolve) => setTimeout(resolve, 80));
      await refuseConnections(true);
      const error = await done;
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect((error as Error).message).toMatch(/^waymark could not .+: .+/);
      expect((error as Error).cause).toBeDefined();
      // Each retry is told (what `waymark.store.retries` counts). PostgreSQL refusing
      // connections is an outage to wait out, so it retries; MariaDB's locked account answers
      // "access denied", which no retry outlasts: only a statement the kill cut may retry.
      if (backend === 'postgres') expect(retries.length).toBeGreaterThan(0);
      for (const retry of retries) {
        expect(retry).toMatchObject({ operation: expect.any(String) });
        expect(retry.attempt).toBeGreaterThanOrEqual(1);
        expect(retry.delayMs).toBeGreaterThan(0);
      }
    } finally {
      await refuseConnections(false);
      await runtime.close({ grace: 100 });
    }
    // Once the database answers again, calling the workflow again resumes the run, and the
    // runtime that resumed it says nothing about it.
    const log = new RecordingLogger([]);
    const next = await open({ logger: log });
    try {
      await expect(scope.resolve(SlowPipeline).run(id, STEPS)).resolves.toBe(TOTAL);
      const executions = counts.of(`slow-pipeline-${id}`);
      expect(executions).toHaveLength(STEPS);
      // Only the step in flight when the outage won may have run twice.
      expect(executions.filter((n) => n > 1).length).toBeLessThanOrEqual(1);
    } finally {
      await next.close({ grace: 100 });
    }
    expect(log.abandoned()).toEqual([]);
  });

  it('a caller awaiting a run through an outage longer than storeRetryTimeout gets StoreUnavailableError; the run completes once the database returns and the caller can await it again', async () => {
    const gate = new Gate();
    scope.registerInstance(Gate, gate);
    const runtime = await open({ storeRetryTimeout: '300ms' });
    const id = `await-${Date.now()}`;
    const runId = `gated-pipeline-${id}`;
    try {
      const handle = await runtime.start(GatedPipeline, 'run', [id, STEPS]);
      // Step 2's body is running: the database goes away before its checkpoint is written.
      await gate.reached;
      await refuseConnections(true);
      let outcome: unknown;
      try {
        gate.open();
        outcome = await handle.result().catch((e: unknown) => e);
      } finally {
        await refuseConnections(false);
      }
      expect(outcome).toBeInstanceOf(StoreUnavailableError);
      expect((outcome as Error).message).toMatch(/^waymark could not .+: .+/);

      // The database is back: this process resumes the run, and the same handle gets the result.
      await runtime.recover();
      await expect(handle.result()).resolves.toBe(TOTAL);
      // At least once: the step whose checkpoint write failed ran again; no other step did.
      const executions = counts.of(runId);
      expect(executions).toEqual(Array.from({ length: STEPS }, (_, i) => (i === 2 ? 2 : 1)));
      expect((await runtime.history(runId)).map((s) => s.status)).toEqual(
        Array(STEPS).fill('completed'),
      );
    } finally {
      await runtime.close({ grace: 100 });
    }
  });

  /**
   * A sustained outage of this database only: new connections are refused (an account lock
   * on MariaDB, ALLOW_CONNECTIONS on PostgreSQL) and the open ones are killed.
   */
  async function refuseConnections(refuse: boolean): Promise<void> {
    if (backend === 'mariadb') {
      await admin.query(`ALTER USER '${user}'@'%' ACCOUNT ${refuse ? 'LOCK' : 'UNLOCK'}`);
    } else {
      await admin.query(
        `ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS ${refuse ? 'false' : 'true'}`,
      );
    }
    if (refuse) await killConnections(admin, backend, name);
  }
});

describe('a locked SQLite file', () => {
  let db: TestDatabase;
  let scope: DependencyContainer;
  let counts: BodyCounts;
  let file: string;

  beforeAll(async () => {
    db = await createTestDatabase('sqlite-file');
    file = db.url.slice('sqlite:'.length);
  });
  afterAll(async () => {
    await db.drop();
  });
  beforeEach(() => {
    scope = rootContainer.createChildContainer();
    counts = new BodyCounts();
    scope.registerInstance(BodyCounts, counts);
  });

  const open = (storeRetryTimeout: Duration, logger?: RecordingLogger): Promise<WaymarkRuntime> =>
    Waymark.create({
      database: { type: 'better-sqlite3', database: file, enableWAL: true, timeout: 20 },
      container: scope,
      workerId: 'sqlite-outage',
      storeRetryTimeout,
      logger,
    });

  const lockFor = (ms: number): Promise<void> => {
    const other = new Database(file);
    other.exec('BEGIN EXCLUSIVE');
    return new Promise((resolve) =>
      setTimeout(() => {
        other.exec('COMMIT');
        other.close();
        resolve();
      }, ms),
    );
  };

  it('a lock held by another process is waited out; the run completes with each step once', async () => {
    const runtime = await open('10s');
    try {
      const id = `locked-${Date.now()}`;
      const done = scope.resolve(SlowPipeline).run(id, 6);
      await new Promise((resolve) => setTimeout(resolve, 60));
      await lockFor(400);
      await expect(done).resolves.toBe(15);
      expect(counts.of(`slow-pipeline-${id}`)).toEqual(Array(6).fill(1));
    } finally {
      await runtime.close({ grace: 100 });
    }
  });

  it('a lock held past storeRetryTimeout fails the call with the cause named; the run resumes later', async () => {
    const runtime = await open('200ms');
    const id = `locked-long-${Date.now()}`;
    try {
      const done = scope
        .resolve(SlowPipeline)
        .run(id, 6)
        .catch((e: unknown) => e);
      await new Promise((resolve) => setTimeout(resolve, 60));
      const released = lockFor(1000);
      const error = await done;
      await released;
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect((error as Error).message).toMatch(/database is locked/);
    } finally {
      await runtime.close({ grace: 100 });
    }
    // The failed call left the run resumable: a call resumes it, and the runtime that resumed
    // it says nothing about it.
    const log = new RecordingLogger([]);
    const next = await open('10s', log);
    try {
      await expect(scope.resolve(SlowPipeline).run(id, 6)).resolves.toBe(15);
    } finally {
      await next.close({ grace: 100 });
    }
    expect(log.abandoned()).toEqual([]);
  });
});
