import { container as rootContainer, type DependencyContainer } from 'tsyringe';
import { DataSource } from 'typeorm';
import {
  RunCancelledError,
  RunFinishedError,
  RunNotFoundError,
  Waymark,
  dataSourceOptionsFromUrl,
  type WaymarkRuntime,
} from 'waymark';
import { createTestRuntime, type TestRuntime } from 'waymark/testing';
import { ALL_BACKENDS, createTestDatabase, type TestDatabase } from '../support/databases';
import { Approvals, StepLog } from '../support/fixtures/Approvals';

describe.each(ALL_BACKENDS)('waiting for people and time on %s', (backend) => {
  let db: TestDatabase;
  let runtime: TestRuntime;
  let scope: DependencyContainer;
  let log: StepLog;
  let n = 0;
  const id = (): string => `${backend}-${++n}-${Date.now()}`;
  // The database every runtime of a test opens: a URL, or one in-memory SQLite database that
  // outlives the runtimes (so one can close while another goes on).
  let database: string | DataSource;

  beforeAll(async () => {
    db = await createTestDatabase(backend);
    database =
      backend === 'sqlite'
        ? await new DataSource(dataSourceOptionsFromUrl(db.url)).initialize()
        : db.url;
  });
  afterAll(async () => {
    if (database instanceof DataSource) await database.destroy();
    await db.drop();
  });
  const start = async (clock: 'real' | 'fake' = 'real'): Promise<void> => {
    scope = rootContainer.createChildContainer();
    log = new StepLog();
    scope.registerInstance(StepLog, log);
    runtime = await createTestRuntime({ database, container: scope, clock });
  };
  afterEach(async () => {
    Approvals.stepDelayMs = 0;
    await runtime.close({ grace: 100 });
  });

  const waitForStatus = async (runId: string, status: string): Promise<void> => {
    for (let i = 0; i < 300; i++) {
      if (
        (await runtime
          .handle(runId)
          .status()
          .catch(() => undefined)) === status
      )
        return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(
      `run ${runId} never became ${status}; it is ${await runtime.handle(runId).status()}`,
    );
  };

  it('a signal already delivered is returned at once', async () => {
    await start();
    const r = id();
    const handle = await runtime.start(Approvals, 'twoApprovals', [r]);
    await waitForStatus(handle.runId, 'waiting');
    await runtime.signal(handle.runId, 'approval', { approved: true, by: 'ana' });
    await runtime.signal(handle.runId, 'approval', { approved: true, by: 'ben' });
    await expect(handle.result()).resolves.toEqual(['ana', 'ben']);
  });

  it('a waiting run holds no process: waiting, no owner, no lease; the signal resumes it', async () => {
    await start();
    const r = id();
    const handle = await runtime.start(Approvals, 'request', [r]);
    await waitForStatus(handle.runId, 'waiting');
    expect(await handle.describe()).toMatchObject({ status: 'waiting', owner: null });
    expect(log.count(handle.runId, 'draft')).toBe(1);
    const history = await handle.history();
    expect(history.map((s) => [s.name, s.status])).toEqual([
      ['draft', 'completed'],
      ['signal:approval', 'started'],
    ]);
    await runtime.signal(handle.runId, 'approval', { approved: true, by: 'dana' });
    await expect(handle.result()).resolves.toBe('approved by dana');
    expect(log.count(handle.runId, 'draft')).toBe(1);
    expect((await handle.history()).map((s) => s.status)).toEqual([
      'completed',
      'completed',
      'completed',
    ]);
  });

  it('signals with one name queue in order, each wait takes one, and the payload is recorded', async () => {
    await start();
    const r = id();
    const runId = `two-${r}`;
    const handle = await runtime.start(Approvals, 'twoApprovals', [r]);
    await waitForStatus(runId, 'waiting');
    await runtime.signal(runId, 'approval', { approved: true, by: 'first' });
    await runtime.signal(runId, 'approval', { approved: false, by: 'second' });
    await runtime.signal(runId, 'approval', { approved: false, by: 'third' });
    await expect(handle.result()).resolves.toEqual(['first', 'second']);
    runtime = await runtime.restart();
    await expect(scope.resolve(Approvals).twoApprovals(r)).resolves.toEqual(['first', 'second']);
  });

  it('no signal within 7 days raises SignalTimeoutError in the workflow, which escalates', async () => {
    await start('fake');
    const r = id();
    const handle = await runtime.start(Approvals, 'request', [r]);
    const result = handle.result();
    await waitForStatus(handle.runId, 'waiting');
    expect((await handle.describe()).wakeAt!.getTime()).toBe(runtime.clock.now() + 7 * 86_400_000);
    await runtime.clock.advance('6d');
    expect(await handle.status()).toBe('waiting');
    await runtime.clock.advance('1d');
    await expect(result).resolves.toBe('escalated');
    const history = await handle.history();
    expect(history[1]).toMatchObject({
      name: 'signal:approval',
      status: 'failed',
      error: { name: 'SignalTimeoutError' },
    });
  });

  it('a signal to an unknown or finished run is a clear error, and nothing is stored', async () => {
    await start();
    await expect(runtime.signal('no-such-run', 'approval', {})).rejects.toBeInstanceOf(
      RunNotFoundError,
    );
    const r = id();
    const handle = await runtime.start(Approvals, 'request', [r]);
    await waitForStatus(handle.runId, 'waiting');
    await runtime.signal(handle.runId, 'approval', { approved: false, by: 'eve' });
    await expect(handle.result()).resolves.toBe('rejected by eve');
    const error = await runtime.signal(handle.runId, 'approval', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunFinishedError);
    expect((error as Error).message).toBe(
      `cannot signal "approval" to run "${handle.runId}": it is already completed`,
    );
  });

  it('a short sleep waits in the process; a long one releases the run until it is due', async () => {
    await start('fake');
    const short = scope.resolve(Approvals).nap(id(), '10s');
    await runtime.clock.untilSleeping();
    await runtime.clock.advance('10s');
    await expect(short).resolves.toBe(10_000);

    const r = id();
    const handle = await runtime.start(Approvals, 'nap', [r, '2h']);
    const result = handle.result();
    await waitForStatus(handle.runId, 'waiting');
    expect(await handle.describe()).toMatchObject({ owner: null });
    expect(log.count(handle.runId, 'draft')).toBe(0);
    await runtime.clock.advance('2h');
    await expect(result).resolves.toBe(7_200_000);
  });

  it('a worker runs queued runs and resumes waiting runs once signalled', async () => {
    await start();
    const runs = await Promise.all(
      [1, 2, 3].map(() => runtime.start(Approvals, 'longJob', [id(), 3], { queue: true })),
    );
    for (const handle of runs) expect(await handle.status()).toBe('pending');
    const waiting = await runtime.start(Approvals, 'request', [id()], { queue: true });
    runtime.startWorker({ concurrency: 2, pollInterval: '20ms' });
    for (const handle of runs) await expect(handle.result()).resolves.toBe(3);
    await waitForStatus(waiting.runId, 'waiting');
    await runtime.signal(waiting.runId, 'approval', { approved: true, by: 'worker test' });
    await waitForStatus(waiting.runId, 'completed');
    await expect(waiting.result()).resolves.toBe('approved by worker test');
  });

  it('cancel() of a run executing here aborts its step through ctx.signal and ends it cancelled', async () => {
    await start();
    Approvals.stepDelayMs = 5_000;
    const r = id();
    const handle = await runtime.start(Approvals, 'longJob', [r, 3]);
    for (let i = 0; i < 200 && log.count(handle.runId, 'work-0') === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await runtime.cancel(handle.runId, 'not needed any more');
    await expect(handle.result()).rejects.toBeInstanceOf(RunCancelledError);
    await expect(handle).toHaveRunStatus('cancelled');
    expect((await handle.history()).filter((s) => s.status === 'completed')).toEqual([]);
  });

  it('closing hands a run over at its next step boundary, and another worker continues it at once', async () => {
    await start();
    Approvals.stepDelayMs = 50;
    const r = id();
    const handle = await runtime.start(Approvals, 'longJob', [r, 6]);
    for (let i = 0; i < 400 && log.count(handle.runId, 'work-1') === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const other: WaymarkRuntime = await Waymark.create({
      database,
      container: scope,
      workerId: 'the-other-process',
    });
    try {
      await runtime.close({ grace: 2000 });
      const stored = await other.handle(handle.runId).describe();
      expect(['pending', 'completed']).toContain(stored.status);
      other.startWorker({ pollInterval: '20ms' });
      await expect(other.handle(handle.runId).result()).resolves.toBe(6);
      for (let i = 0; i < 6; i++) expect(log.count(handle.runId, `work-${i}`)).toBe(1);
    } finally {
      await other.close({ grace: 100 });
    }
  });

  it('closing right after an operator action hands its run over too, instead of holding it until the lease lapses', async () => {
    await start();
    const r = id();
    const original = await runtime.start(Approvals, 'longJob', [r, 3]);
    await expect(original.result()).resolves.toBe(3);
    // The fork is claimed here and still loading its history when the close begins.
    const fork = await runtime.fork(original.runId, { fromSeq: 0, newRunId: `again-${r}` });
    await runtime.close({ grace: 0 });
    const other: WaymarkRuntime = await Waymark.create({
      database,
      container: scope,
      workerId: 'the-other-process',
    });
    try {
      const stored = await other.handle(fork.runId).describe();
      expect(['pending', 'completed']).toContain(stored.status);
      other.startWorker({ pollInterval: '20ms' });
      await expect(other.handle(fork.runId).result()).resolves.toBe(3);
    } finally {
      await other.close({ grace: 100 });
    }
  });

  it('a process whose lease was taken over writes nothing more, and its caller still gets the result', async () => {
    await start();
    Approvals.stepDelayMs = 150;
    const r = id();
    const handle = await runtime.start(Approvals, 'longJob', [r, 4]);
    const finishedHere: string[] = [];
    runtime.on('run.completed', (event) => finishedHere.push(event.runId));
    for (let i = 0; i < 400 && log.count(handle.runId, 'work-1') === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    // Simulate a pause past the lease: the lease lapses and another process claims the run.
    const admin =
      database instanceof DataSource
        ? database
        : await new DataSource(dataSourceOptionsFromUrl(db.url)).initialize();
    const placeholder = db.backend === 'postgres' ? '$1' : '?';
    await admin.query(`UPDATE waymark_runs SET lease_expires_at = 1 WHERE id = ${placeholder}`, [
      handle.runId,
    ]);
    const other = await Waymark.create({
      database,
      container: scope,
      workerId: 'the-taker',
    });
    try {
      const finishedThere: string[] = [];
      other.on('run.completed', (event) => finishedThere.push(event.runId));
      other.startWorker({ pollInterval: '20ms' });
      // The caller here waits on: the run completes in the process that took it over.
      await expect(handle.result()).resolves.toBe(4);
      await expect(other.handle(handle.runId).result()).resolves.toBe(4);
      expect(finishedThere).toEqual([handle.runId]);
      // The fenced-out execution did not finish the run.
      expect(finishedHere.filter((e) => e === handle.runId)).toEqual([]);
      const history = await other.handle(handle.runId).history();
      expect(history.map((s) => s.name)).toEqual(['work', 'work', 'work', 'work']);
      // Only the step in flight when the lease was lost may have run twice.
      const repeats = [0, 1, 2, 3].filter((i) => log.count(handle.runId, `work-${i}`) > 1);
      expect(repeats.length).toBeLessThanOrEqual(1);
    } finally {
      await other.close({ grace: 100 });
      if (admin !== database) await admin.destroy();
    }
  });
});
