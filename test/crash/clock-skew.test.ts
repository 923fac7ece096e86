import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { container } from 'tsyringe';
import { Waymark, type RunHandle, type WaymarkRuntime } from 'waymark';
import { createTestDatabase, type Backend, type TestDatabase } from '../support/databases';
import { SkewFlow, type SkewResult } from './fixtures/SkewFlow';
import { readStepLedger, STEP_LEDGER_PATH } from './fixtures/StepLedger';
import { WorkerProcess } from './support/WorkerProcess';

const BACKENDS: Backend[] = ['sqlite-file', 'mariadb', 'postgres'];
const RUNS = 6;
const STAGES = 3;
const STAGE_MS = 200;
/** Renewed every third of it: a live holder's lease never lapses under ordinary load. */
const LEASE = '2s';
/** How long the runs are held while the skewed workers poll: two whole leases. */
const HELD_MS = 4_000;
const TEN_MINUTES = 10 * 60_000;

/**
 * Workers on hosts whose clocks disagree by minutes share one database: ownership is judged by
 * the database server's clock, so none takes a run from a live holder, whichever way its own
 * clock is off. On SQLite (one host) the skew is an injected clock; it must not matter either.
 */
describe.each(BACKENDS)('workers whose clocks disagree, on %s', (backend) => {
  let db: TestDatabase;
  let dir: string;
  let producer: WaymarkRuntime;
  const workers: WorkerProcess[] = [];

  beforeAll(async () => {
    db = await createTestDatabase(backend);
    // The producer only queues runs (it runs no worker): its ledger is never written.
    const scope = container.createChildContainer();
    scope.register(STEP_LEDGER_PATH, { useValue: join(tmpdir(), 'waymark-skew-unused.ledger') });
    producer = await Waymark.create({
      database: db.url,
      workerId: 'skew-producer',
      container: scope,
    });
  });

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'waymark-skew-'));
  });

  afterEach(async () => {
    for (const worker of workers.splice(0)) {
      worker.kill();
      await worker.exited.catch(() => undefined);
    }
    rmSync(dir, { recursive: true, force: true });
  });

  afterAll(async () => {
    await producer?.close({ grace: 0 });
    await db?.drop();
  });

  async function startWorker(ledger: string, offsetMs: number): Promise<WorkerProcess> {
    const worker = WorkerProcess.start(
      'test/crash/fixtures/skewedWorker.ts',
      [db.url, ledger, String(offsetMs), LEASE],
      { timeoutMs: 90_000 },
    );
    workers.push(worker);
    await worker.waitForLine((line) => line === 'go');
    return worker;
  }

  async function queueRuns(label: string): Promise<Array<RunHandle<SkewResult>>> {
    const handles: Array<RunHandle<SkewResult>> = [];
    for (let n = 0; n < RUNS; n++) {
      handles.push(
        await producer.start(SkewFlow, 'run', [`${label}-${n}`, STAGES, STAGE_MS, release()], {
          queue: true,
        }),
      );
    }
    return handles;
  }

  /** Waits until `worker` printed a claim of every run. */
  async function holdsAll(worker: WorkerProcess, handles: Array<RunHandle<SkewResult>>) {
    for (const { runId } of handles)
      await worker.waitForLine((line) => line === `claimed ${runId}`);
  }

  const release = (): string => join(dir, 'release');

  /** Lets the held runs go on once the other workers have polled for two whole leases. */
  async function releaseLater(): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, HELD_MS));
    writeFileSync(release(), '');
  }

  /** Every run completed as if alone: each body once, one claim each, no unknown outcome. */
  async function expectUntouched(handles: Array<RunHandle<SkewResult>>, ledger: string) {
    const results = await Promise.all(handles.map((h) => h.result()));
    expect(results.map((r) => r.charge)).toEqual(Array(RUNS).fill('charged'));
    const bodies = readStepLedger(ledger);
    for (const { runId } of handles) {
      const mine = bodies.filter((entry) => entry.runId === runId).map((entry) => entry.step);
      expect(mine.sort()).toEqual(['charge', 'hold', 'stage-0', 'stage-1', 'stage-2']);
    }
    expect(new Set(bodies.map((entry) => entry.pid)).size).toBe(1);
    const mark = backend === 'postgres' ? '$1' : '?';
    for (const { runId } of handles) {
      const [row] = await producer.dataSource.query<Array<{ epoch: unknown }>>(
        `SELECT epoch FROM waymark_runs WHERE id = ${mark}`,
        [runId],
      );
      // Queued at epoch 1; each claim moves it on by one.
      expect(Number(row.epoch)).toBe(2);
    }
  }

  it('a worker whose clock is 10 minutes ahead takes no run from a live worker', async () => {
    const ledger = join(dir, 'ledger');
    const live = await startWorker(ledger, 0);
    const handles = await queueRuns('ahead');
    await holdsAll(live, handles);
    await startWorker(ledger, TEN_MINUTES);
    await releaseLater();
    await expectUntouched(handles, ledger);
  });

  it('a worker whose clock is 10 minutes behind keeps its runs beside a worker on time', async () => {
    const ledger = join(dir, 'ledger');
    const behind = await startWorker(ledger, -TEN_MINUTES);
    const handles = await queueRuns('behind');
    await holdsAll(behind, handles);
    await startWorker(ledger, 0);
    await startWorker(ledger, TEN_MINUTES);
    await releaseLater();
    await expectUntouched(handles, ledger);
  });
});
