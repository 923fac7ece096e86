import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { container } from 'tsyringe';
import { Waymark, type WaymarkRuntime } from 'waymark';
import { createTestDatabase, type Backend, type TestDatabase } from '../support/databases';
import { StagedWorkflow } from './fixtures/StagedWorkflow';
import { readStepLedger, STEP_LEDGER_PATH } from './fixtures/StepLedger';
import { QueueWorker } from './support/QueueWorker';

const RUNS = 200;
const STAGES = 5;
const STAGE_MS = 3;
const WORKERS = 4;
const WORKFLOW = 'staged-short';
const DEADLINE_MS = 40_000;
const POLL_MS = 200;

const BACKENDS: Backend[] = ['mariadb', 'postgres'];

describe.each(BACKENDS)(`${WORKERS} worker processes sharing one queue on %s`, (backend) => {
  let db: TestDatabase;
  let dir: string;
  /** Enqueues and counts from the test process; it starts no worker, so it runs nothing. */
  let producer: WaymarkRuntime;
  const workers: QueueWorker[] = [];

  beforeAll(async () => {
    db = await createTestDatabase(backend);
    dir = mkdtempSync(join(tmpdir(), 'waymark-workers-'));
    const scope = container.createChildContainer();
    scope.register(STEP_LEDGER_PATH, { useValue: join(dir, 'unused.ledger') });
    producer = await Waymark.create({ database: db.url, container: scope });
  });

  afterAll(async () => {
    for (const worker of workers) worker.child.kill();
    await Promise.all(workers.map((w) => w.child.exited.catch(() => undefined)));
    await producer?.close({ grace: 0 });
    await db?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it(`complete ${RUNS} queued runs of ${STAGES} steps, each step executed exactly once, spread over several processes`, async () => {
    const ledgerPath = join(dir, 'steps.ledger');
    const barrier = join(dir, 'go');
    const enqueueStart = Date.now();
    const runIds: string[] = [];
    for (let i = 0; i < RUNS; i++) {
      const handle = await producer.start(StagedWorkflow, 'short', [`run-${i}`, STAGES, STAGE_MS], {
        runId: `${backend}-run-${i}`,
        queue: true,
      });
      runIds.push(handle.runId);
    }
    const enqueueMs = Date.now() - enqueueStart;
    expect(await countRuns(producer, 'pending')).toBe(RUNS);

    for (let i = 0; i < WORKERS; i++) {
      workers.push(
        QueueWorker.start(db.url, ledgerPath, { concurrency: 8, pollInterval: '50ms', barrier }),
      );
    }
    await Promise.all(workers.map((w) => w.ready()));
    const goAt = Date.now();
    writeFileSync(barrier, '');
    let done = 0;
    while (done < RUNS && Date.now() - goAt < DEADLINE_MS) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      done = await countRuns(producer, 'completed');
    }
    const drainMs = Date.now() - goAt;
    const exits = await Promise.all(workers.map((w) => w.terminate()));

    const ledger = readStepLedger(ledgerPath);
    const perPid = new Map<number, number>();
    for (const entry of ledger) perPid.set(entry.pid, (perPid.get(entry.pid) ?? 0) + 1);
    const report =
      `${backend}: enqueued ${RUNS} runs in ${enqueueMs} ms; ${done} completed ` +
      `${drainMs} ms after the barrier; step bodies per pid ${JSON.stringify([...perPid])}`;
    try {
      expect(done).toBe(RUNS);
      expect(await countRuns(producer)).toBe(RUNS);
      expect(exits.map(({ code, signal }) => ({ code, signal }))).toEqual(
        workers.map(() => ({ code: 0, signal: null })),
      );

      const executions = new Map<string, number[]>();
      for (const { runId, step, pid } of ledger) {
        const key = `${runId} ${step}`;
        executions.set(key, [...(executions.get(key) ?? []), pid]);
      }
      const expected = runIds.flatMap((runId) =>
        Array.from({ length: STAGES }, (_, i) => `${runId} stage-${i + 1}`),
      );
      expect([...executions.keys()].sort()).toEqual([...expected].sort());
      const repeated = [...executions].filter(([, pids]) => pids.length !== 1);
      expect(repeated).toEqual([]);
      expect(ledger).toHaveLength(RUNS * STAGES);

      // Each run was claimed and finished by one worker, once.
      const ends = workers.flatMap((w) => w.events('run.completed').map((e) => e.fields[0]));
      expect([...ends].sort()).toEqual([...runIds].sort());
      const takes = workers.flatMap((w) =>
        [...w.events('run.started'), ...w.events('run.resumed')].map((e) => e.fields[0]),
      );
      expect([...takes].sort()).toEqual([...runIds].sort());
      expect(perPid.size).toBeGreaterThan(1);
    } catch (error) {
      if (error instanceof Error) error.message = `${report}\n${error.message}`;
      throw error;
    }
  }, 60_000);
});

/** Runs of the workflow in the store, with `status` if given (one page holds them all). */
async function countRuns(runtime: WaymarkRuntime, status?: 'pending' | 'completed') {
  const page = await runtime.list({ workflow: WORKFLOW, status, limit: 1000 });
  return page.runs.length;
}
