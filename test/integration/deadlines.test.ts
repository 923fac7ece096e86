import { container as rootContainer } from 'tsyringe';
import { DataSource } from 'typeorm';
import { RunCancelledError, dataSourceOptionsFromUrl } from 'waymark';
import { createTestRuntime, type TestRuntime } from 'waymark/testing';
import { createTestDatabase, type Backend, type TestDatabase } from '../support/databases';
import { Clockwork, ClockworkLog } from '../support/fixtures/Clockwork';
import { Narrator, NarratorScript } from '../support/fixtures/Narrator';

const BACKENDS: Backend[] = ['sqlite', 'sqlite-file', 'mariadb', 'postgres'];

describe.each(BACKENDS)('deadlines, cancellation and retention on %s', (backend) => {
  let db: TestDatabase;
  let database: string | DataSource;
  let runtime: TestRuntime;
  let log: ClockworkLog;
  let n = 0;

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
  beforeEach(async () => {
    const scope = rootContainer.createChildContainer();
    log = new ClockworkLog();
    scope.registerInstance(ClockworkLog, log);
    runtime = await createTestRuntime({ database, container: scope, clock: 'fake' });
  });
  afterEach(() => runtime.close({ grace: 100 }));
  const label = (what: string): string => `${backend}-${what}-${++n}`;

  async function until(check: () => Promise<boolean>, what: string): Promise<void> {
    for (let i = 0; i < 500; i++) {
      if (await check()) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`never happened: ${what}`);
  }
  const statusIs = (runId: string, status: string) => async () =>
    (await runtime
      .handle(runId)
      .status()
      .catch(() => undefined)) === status;

  it('a deadline is stored with the run: after a restart, the run past it is cancelled and does not go on', async () => {
    const l = label('deadline');
    const handle = await runtime.start(Clockwork, 'slow', [l, '1h'], { deadline: '10m' });
    await until(statusIs(handle.runId, 'waiting'), 'the run sleeps');
    runtime = await runtime.restart();
    runtime.startWorker({ pollInterval: 10 });
    await runtime.clock.advance('11m');
    await until(statusIs(handle.runId, 'cancelled'), 'the run was cancelled');
    const error = await runtime
      .handle(handle.runId)
      .result()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunCancelledError);
    expect((error as Error).message).toMatch(/deadline passed \(2026-01-01T00:10:00.000Z\)/);
    await runtime.clock.advance('2h');
    const queued = await runtime.start(Clockwork, 'report', [label('marker')], { queue: true });
    await queued.result(); // the worker has polled since the sleep would have ended
    expect(log.entries.filter((e) => e.includes(l))).toEqual([`slow-before ${l}`]);
  });

  it('@Workflow({ timeout }) gives each run a deadline from its start', async () => {
    const handle = await runtime.start(Clockwork, 'timed', [label('timed')]);
    expect((await handle.describe()).status).not.toBe('cancelled');
    runtime.startWorker({ pollInterval: 10 });
    await runtime.clock.advance('9m');
    await until(statusIs(handle.runId, 'waiting'), 'the run sleeps');
    await runtime.clock.advance('2m');
    await until(statusIs(handle.runId, 'cancelled'), 'the run was cancelled at its timeout');
  });

  it('cancelling a parent cancels its child runs', async () => {
    const l = label('parent');
    const handle = await runtime.start(Clockwork, 'parent', [l]);
    const child = `${handle.runId}/1`;
    await until(statusIs(child, 'waiting'), 'the child waits for its signal');
    await runtime.cancel(handle.runId, 'no longer needed');
    expect(await runtime.handle(handle.runId).status()).toBe('cancelled');
    expect(await runtime.handle(child).status()).toBe('cancelled');
    await expect(runtime.signal(child, 'never', 1)).rejects.toThrow(/cancelled|ended/);
  });

  it('a run past its deadline is cancelled with its children', async () => {
    const handle = await runtime.start(Clockwork, 'parent', [label('parent-deadline')], {
      deadline: '1h',
    });
    const child = `${handle.runId}/1`;
    await until(statusIs(child, 'waiting'), 'the child waits for its signal');
    runtime.startWorker({ pollInterval: 10 });
    await runtime.clock.advance('61m');
    await until(statusIs(handle.runId, 'cancelled'), 'the parent was cancelled');
    expect(await runtime.handle(child).status()).toBe('cancelled');
  });

  it('a run executing here when its deadline passes is cancelled at its next step boundary', async () => {
    const l = label('gated');
    let open!: () => void;
    Clockwork.gate = new Promise<void>((resolve) => (open = resolve));
    const handle = await runtime.start(Clockwork, 'gated', [l], { deadline: '10m' });
    await until(async () => log.entries.includes(`gated-waiting ${l}`), 'the first step runs');
    runtime.startWorker({ pollInterval: 10 });
    await runtime.clock.advance('11m');
    await until(statusIs(handle.runId, 'cancelled'), 'the run was cancelled');
    open();
    await expect(handle.result()).rejects.toBeInstanceOf(RunCancelledError);
    expect(log.entries).not.toContain(`gated-after ${l}`);
  });

  it('a runtime with no worker enforces the deadline of a run it executes', async () => {
    await runtime.close({ grace: 100 });
    const scope = rootContainer.createChildContainer();
    scope.registerInstance(ClockworkLog, log);
    runtime = await createTestRuntime({
      database,
      container: scope,
      clock: 'fake',
      leaseDuration: '300ms',
    });
    const l = label('no-worker');
    let open!: () => void;
    Clockwork.gate = new Promise<void>((resolve) => (open = resolve));
    const handle = await runtime.start(Clockwork, 'gated', [l], { deadline: '10m' });
    await until(async () => log.entries.includes(`gated-waiting ${l}`), 'the first step runs');
    await runtime.clock.advance('11m');
    await until(statusIs(handle.runId, 'cancelled'), 'the run was cancelled');
    open();
    await expect(handle.result()).rejects.toBeInstanceOf(RunCancelledError);
    expect(log.entries).not.toContain(`gated-after ${l}`);
  });

  it('@Workflow({ retention }): a worker deletes ended runs of the workflow once they are older', async () => {
    const kept = await runtime.start(Clockwork, 'kept', [label('kept')]);
    await kept.result();
    const other = await runtime.start(Clockwork, 'report', [label('not-kept')]);
    await other.result();
    await runtime.clock.advance('25h');
    runtime.startWorker({ pollInterval: 10 });
    await until(
      async () =>
        (await runtime
          .handle(kept.runId)
          .status()
          .catch(() => 'gone')) === 'gone',
      'the kept run was deleted',
    );
    expect(await runtime.handle(other.runId).status()).toBe('completed');
  });

  it('a queued run no worker started by its startBy time is cancelled, never run', async () => {
    const l = label('late');
    const handle = await runtime.start(Clockwork, 'report', [l], { queue: true, startBy: '5m' });
    await runtime.clock.advance('6m');
    runtime.startWorker({ pollInterval: 10 });
    await until(statusIs(handle.runId, 'cancelled'), 'the queued run was cancelled');
    expect(log.entries).toEqual([]);
  });

  it('refuses a time that is not a Date or a duration, naming the option', async () => {
    await expect(
      runtime.start(Clockwork, 'report', ['x'], { deadline: 'soon' as '1h' }),
    ).rejects.toThrow(/start\(\): deadline/);
    await expect(
      runtime.start(Clockwork, 'report', ['x'], { at: new Date('nope') }),
    ).rejects.toThrow(/start\(\): at is an invalid Date/);
  });

  it('prune deletes ended runs older than asked, in batches, and their history', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push((await runtime.start(Clockwork, 'report', [label('old')])).runId);
    for (const id of ids) await runtime.handle(id).result();
    await runtime.clock.advance('31d');
    const fresh = await runtime.start(Clockwork, 'report', [label('fresh')]);
    await fresh.result();
    await expect(
      runtime.prune({ olderThan: '30d', status: 'running' as 'failed' }),
    ).rejects.toThrow(/prune\(\): status must be an ended status/);
    const result = await runtime.prune({ olderThan: '30d', batchSize: 2 });
    expect(result).toEqual({ deleted: expect.any(Number) as number, busy: false });
    expect(result.deleted).toBeGreaterThanOrEqual(5);
    for (const id of ids)
      await expect(runtime.handle(id).status()).rejects.toThrow(/not found|no run/i);
    expect(await runtime.handle(fresh.runId).status()).toBe('completed');
    expect(await runtime.history(fresh.runId)).toHaveLength(1);
  });

  it("prune also deletes a pruned run's stream chunks and frees its dedupe key row", async () => {
    runtime.container.registerInstance(NarratorScript, new NarratorScript());
    const l = label('streamed');
    const run = await runtime.start(Narrator, 'narrate', [l, 3], { queue: true, dedupe: l });
    runtime.startWorker({ pollInterval: 10 });
    await expect(run.result()).resolves.toBe(3);
    const count = async (table: string): Promise<number> => {
      const param = backend === 'postgres' ? '$1' : '?';
      const rows = await runtime.dataSource.query<Array<{ n: unknown }>>(
        `SELECT COUNT(*) AS n FROM ${table} WHERE run_id = ${param}`,
        [run.runId],
      );
      return Number(rows[0].n);
    };
    expect(await count('waymark_stream_chunks')).toBeGreaterThan(0);
    expect(await count('waymark_dedupe_keys')).toBe(1);
    await runtime.clock.advance('2d');
    await runtime.prune({ olderThan: '1d' });
    await expect(runtime.handle(run.runId).status()).rejects.toThrow(/not found|no run/i);
    expect(await count('waymark_stream_chunks')).toBe(0);
    expect(await count('waymark_dedupe_keys')).toBe(0);
  });

  it('one sweeper at a time: while another holds the prune lease, prune deletes nothing', async () => {
    const ran = await runtime.start(Clockwork, 'report', [label('kept')]);
    await ran.result();
    await runtime.clock.advance('2d');
    await runtime.dataSource.query(
      backend === 'postgres'
        ? 'INSERT INTO waymark_locks (name, holder, expires_at) VALUES ($1, $2, $3)'
        : 'INSERT INTO waymark_locks (name, holder, expires_at) VALUES (?, ?, ?)',
      ['prune', 'another-process', runtime.clock.now() + 60_000],
    );
    try {
      expect(await runtime.prune({ olderThan: '1d' })).toEqual({ deleted: 0, busy: true });
      expect(await runtime.handle(ran.runId).status()).toBe('completed');
    } finally {
      await runtime.dataSource.query("DELETE FROM waymark_locks WHERE name = 'prune'");
    }
  });
});
