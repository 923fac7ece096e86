import { container as rootContainer } from 'tsyringe';
import { RunCancelledError } from 'waymark';
import { createTestRuntime } from 'waymark/testing';
import type { Backend } from '../support/databases';
import { useClockworkSuite } from '../support/clockworkSuite';
import { Clockwork, ClockworkLog } from '../support/fixtures/Clockwork';
import { Narrator, NarratorScript } from '../support/fixtures/Narrator';

const BACKENDS: Backend[] = ['sqlite', 'sqlite-file', 'mariadb', 'postgres'];

describe.each(BACKENDS)('deadlines, cancellation and retention on %s', (backend) => {
  const suite = useClockworkSuite(backend);
  const { label, until } = suite;
  const statusIs = (runId: string, status: string) => async () =>
    (await suite.runtime
      .handle(runId)
      .status()
      .catch(() => undefined)) === status;

  it('a deadline is stored with the run: after a restart, the run past it is cancelled and does not go on', async () => {
    const l = label('deadline');
    const handle = await suite.runtime.start(Clockwork, 'slow', [l, '1h'], { deadline: '10m' });
    await until(statusIs(handle.runId, 'waiting'), 'the run sleeps');
    suite.use(await suite.runtime.restart());
    suite.runtime.startWorker({ pollInterval: 10 });
    await suite.runtime.clock.advance('11m');
    await until(statusIs(handle.runId, 'cancelled'), 'the run was cancelled');
    const error = await suite.runtime
      .handle(handle.runId)
      .result()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RunCancelledError);
    expect((error as Error).message).toMatch(/deadline passed \(2026-01-01T00:10:00.000Z\)/);
    await suite.runtime.clock.advance('2h');
    const queued = await suite.runtime.start(Clockwork, 'report', [label('marker')], {
      queue: true,
    });
    await queued.result(); // the worker has polled since the sleep would have ended
    expect(suite.log.entries.filter((e) => e.includes(l))).toEqual([`slow-before ${l}`]);
  });

  it('@Workflow({ timeout }) gives each run a deadline from its start', async () => {
    const handle = await suite.runtime.start(Clockwork, 'timed', [label('timed')]);
    expect((await handle.describe()).status).not.toBe('cancelled');
    suite.runtime.startWorker({ pollInterval: 10 });
    await suite.runtime.clock.advance('9m');
    await until(statusIs(handle.runId, 'waiting'), 'the run sleeps');
    await suite.runtime.clock.advance('2m');
    await until(statusIs(handle.runId, 'cancelled'), 'the run was cancelled at its timeout');
  });

  it('cancelling a parent cancels its child runs', async () => {
    const l = label('parent');
    const handle = await suite.runtime.start(Clockwork, 'parent', [l]);
    const child = `${handle.runId}/1`;
    await until(statusIs(child, 'waiting'), 'the child waits for its signal');
    await suite.runtime.cancel(handle.runId, 'no longer needed');
    expect(await suite.runtime.handle(handle.runId).status()).toBe('cancelled');
    expect(await suite.runtime.handle(child).status()).toBe('cancelled');
    await expect(suite.runtime.signal(child, 'never', 1)).rejects.toThrow(/cancelled|ended/);
  });

  it('a run past its deadline is cancelled with its children', async () => {
    const handle = await suite.runtime.start(Clockwork, 'parent', [label('parent-deadline')], {
      deadline: '1h',
    });
    const child = `${handle.runId}/1`;
    await until(statusIs(child, 'waiting'), 'the child waits for its signal');
    suite.runtime.startWorker({ pollInterval: 10 });
    await suite.runtime.clock.advance('61m');
    await until(statusIs(handle.runId, 'cancelled'), 'the parent was cancelled');
    expect(await suite.runtime.handle(child).status()).toBe('cancelled');
  });

  /**
   * Starts a gated run with a 10-minute deadline, waits until its first step runs, calls
   * `meanwhile`, moves the clock past the deadline and checks that the run was cancelled at its
   * next step boundary: the step after the gate never ran.
   */
  async function expectCancelledAtNextStep(what: string, meanwhile: () => void): Promise<void> {
    const l = label(what);
    let open!: () => void;
    Clockwork.gate = new Promise<void>((resolve) => (open = resolve));
    const handle = await suite.runtime.start(Clockwork, 'gated', [l], { deadline: '10m' });
    await until(
      async () => suite.log.entries.includes(`gated-waiting ${l}`),
      'the first step runs',
    );
    meanwhile();
    await suite.runtime.clock.advance('11m');
    await until(statusIs(handle.runId, 'cancelled'), 'the run was cancelled');
    open();
    await expect(handle.result()).rejects.toBeInstanceOf(RunCancelledError);
    expect(suite.log.entries).not.toContain(`gated-after ${l}`);
  }

  it('a run executing here when its deadline passes is cancelled at its next step boundary', async () => {
    await expectCancelledAtNextStep('gated', () => suite.runtime.startWorker({ pollInterval: 10 }));
  });

  it('a runtime with no worker enforces the deadline of a run it executes', async () => {
    await suite.runtime.close({ grace: 100 });
    const scope = rootContainer.createChildContainer();
    scope.registerInstance(ClockworkLog, suite.log);
    suite.use(
      await createTestRuntime({
        database: suite.database,
        container: scope,
        clock: 'fake',
        leaseDuration: '300ms',
      }),
    );
    await expectCancelledAtNextStep('no-worker', () => undefined);
  });

  it('@Workflow({ retention }): a worker deletes ended runs of the workflow once they are older', async () => {
    const kept = await suite.runtime.start(Clockwork, 'kept', [label('kept')]);
    await kept.result();
    const other = await suite.runtime.start(Clockwork, 'report', [label('not-kept')]);
    await other.result();
    await suite.runtime.clock.advance('25h');
    suite.runtime.startWorker({ pollInterval: 10 });
    await until(
      async () =>
        (await suite.runtime
          .handle(kept.runId)
          .status()
          .catch(() => 'gone')) === 'gone',
      'the kept run was deleted',
    );
    expect(await suite.runtime.handle(other.runId).status()).toBe('completed');
  });

  it('a queued run no worker started by its startBy time is cancelled, never run', async () => {
    const l = label('late');
    const handle = await suite.runtime.start(Clockwork, 'report', [l], {
      queue: true,
      startBy: '5m',
    });
    await suite.runtime.clock.advance('6m');
    suite.runtime.startWorker({ pollInterval: 10 });
    await until(statusIs(handle.runId, 'cancelled'), 'the queued run was cancelled');
    expect(suite.log.entries).toEqual([]);
  });

  it('refuses a time that is not a Date or a duration, naming the option', async () => {
    await expect(
      suite.runtime.start(Clockwork, 'report', ['x'], { deadline: 'soon' as '1h' }),
    ).rejects.toThrow(/start\(\): deadline/);
    await expect(
      suite.runtime.start(Clockwork, 'report', ['x'], { at: new Date('nope') }),
    ).rejects.toThrow(/start\(\): at is an invalid Date/);
  });

  it('prune deletes ended runs older than asked, in batches, and their history', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push((await suite.runtime.start(Clockwork, 'report', [label('old')])).runId);
    for (const id of ids) await suite.runtime.handle(id).result();
    await suite.runtime.clock.advance('31d');
    const fresh = await suite.runtime.start(Clockwork, 'report', [label('fresh')]);
    await fresh.result();
    await expect(
      suite.runtime.prune({ olderThan: '30d', status: 'running' as 'failed' }),
    ).rejects.toThrow(/prune\(\): status must be an ended status/);
    const result = await suite.runtime.prune({ olderThan: '30d', batchSize: 2 });
    expect(result).toEqual({ deleted: expect.any(Number) as number, busy: false });
    expect(result.deleted).toBeGreaterThanOrEqual(5);
    for (const id of ids)
      await expect(suite.runtime.handle(id).status()).rejects.toThrow(/not found|no run/i);
    expect(await suite.runtime.handle(fresh.runId).status()).toBe('completed');
    expect(await suite.runtime.history(fresh.runId)).toHaveLength(1);
  });

  it("prune also deletes a pruned run's stream chunks and frees its dedupe key row", async () => {
    suite.runtime.container.registerInstance(NarratorScript, new NarratorScript());
    const l = label('streamed');
    const run = await suite.runtime.start(Narrator, 'narrate', [l, 3], { queue: true, dedupe: l });
    suite.runtime.startWorker({ pollInterval: 10 });
    await expect(run.result()).resolves.toBe(3);
    const count = async (table: string): Promise<number> => {
      const param = backend === 'postgres' ? '$1' : '?';
      const rows = await suite.runtime.dataSource.query<Array<{ n: unknown }>>(
        `SELECT COUNT(*) AS n FROM ${table} WHERE run_id = ${param}`,
        [run.runId],
      );
      return Number(rows[0].n);
    };
    expect(await count('waymark_stream_chunks')).toBeGreaterThan(0);
    expect(await count('waymark_dedupe_keys')).toBe(1);
    await suite.runtime.clock.advance('2d');
    await suite.runtime.prune({ olderThan: '1d' });
    await expect(suite.runtime.handle(run.runId).status()).rejects.toThrow(/not found|no run/i);
    expect(await count('waymark_stream_chunks')).toBe(0);
    expect(await count('waymark_dedupe_keys')).toBe(0);
  });

  it('one sweeper at a time: while another holds the prune lease, prune deletes nothing', async () => {
    const ran = await suite.runtime.start(Clockwork, 'report', [label('kept')]);
    await ran.result();
    await suite.runtime.clock.advance('2d');
    await suite.runtime.dataSource.query(
      backend === 'postgres'
        ? 'INSERT INTO waymark_locks (name, holder, expires_at) VALUES ($1, $2, $3)'
        : 'INSERT INTO waymark_locks (name, holder, expires_at) VALUES (?, ?, ?)',
      // Leases are on the database server's clock, not the runtime's (fake) one.
      ['prune', 'another-process', Date.now() + 60_000],
    );
    try {
      expect(await suite.runtime.prune({ olderThan: '1d' })).toEqual({ deleted: 0, busy: true });
      expect(await suite.runtime.handle(ran.runId).status()).toBe('completed');
    } finally {
      await suite.runtime.dataSource.query("DELETE FROM waymark_locks WHERE name = 'prune'");
    }
  });
});
