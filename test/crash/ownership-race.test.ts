import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { container } from 'tsyringe';
import { Waymark } from 'waymark';
import { createTestRuntime } from 'waymark/testing';
import { createTestDatabase, type Backend, type TestDatabase } from '../support/databases';
import { HELD_RUN, RecordingLogger } from '../support/RecordingLogger';
import { deriveSeed, mulberry32, upTo } from '../support/SeededRandom';
import { NO_HOLD, RACE_HOLD, RACE_STEPS, RaceFlow, type RaceHold } from './fixtures/RaceFlow';
import { readStepLedger, STEP_LEDGER_PATH } from './fixtures/StepLedger';
import { WorkerProcess } from './support/WorkerProcess';

/**
 * The ownership race: a run's first holder stops (killed, or frozen past its lease) inside a
 * slow step, and in another runtime a worker, a caller of `result()` and a direct call of the
 * workflow all reach for the run at seeded random moments. Exactly one of them may execute
 * it: every step body that the stop did not interrupt runs exactly once.
 */
const RUNS = 200;
const SEED = Number(process.env.WAYMARK_RACE_SEED ?? 20_261_130);
const BACKENDS: Backend[] = ['sqlite-file', 'mariadb', 'postgres'];

interface RacedRun {
  readonly key: string;
  readonly holdAt: number;
  readonly resultAfterMs: number;
  readonly callAfterMs: number;
}

describe.each(BACKENDS)('one execution per claim on %s', (backend) => {
  let db: TestDatabase;
  let dir: string;

  beforeAll(async () => {
    db = await createTestDatabase(backend);
    dir = mkdtempSync(join(tmpdir(), 'waymark-race-'));
  });
  afterAll(async () => {
    await db?.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const plan = (variant: string): RacedRun[] => {
    const random = mulberry32(deriveSeed(SEED, backend, variant));
    return Array.from({ length: RUNS }, (_, i) => ({
      key: `${variant}-${i}`,
      holdAt: upTo(random, RACE_STEPS - 1),
      resultAfterMs: upTo(random, 40),
      callAfterMs: upTo(random, 40),
    }));
  };

  it(`in one process, a worker, result() and direct calls take over ${RUNS} runs of a dead runtime, each step executed once`, async () => {
    const runs = plan('in-process');
    const ledgerPath = join(dir, 'in-process.ledger');
    let held = 0;
    let allHeld!: () => void;
    const everyRunHeld = new Promise<void>((resolve) => (allHeld = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const hold: RaceHold = {
      holds: true,
      onHeld: () => void (++held === RUNS && allHeld()),
      released,
    };
    const scope = container.createChildContainer();
    scope.register(STEP_LEDGER_PATH, { useValue: ledgerPath });
    scope.register(RACE_HOLD, { useValue: hold });
    const holder = await createTestRuntime({
      database: db.url,
      container: scope,
      leaseDuration: '1s',
    });
    try {
      const flow = scope.resolve(RaceFlow);
      for (const run of runs) flow.flow(run.key, run.holdAt).catch(() => undefined);
      await everyRunHeld;
      holder.kill('the first holder dies mid-step');
      // The held bodies finish after the death: whatever they go on to do must be refused.
      release();

      const { log, ...counts } = await takeOver(db.url, runs, ledgerPath);
      expect(counts).toEqual({ resumed: RUNS, completed: RUNS, duplicateResumes: [] });
      expectEachStepOnce(readStepLedger(ledgerPath), runs);
      // The runtime that took over resumed every run with its worker: nothing to report.
      expect(log.abandoned()).toEqual([]);
      expect(log.held()).toEqual([]);
    } finally {
      // Also when the run fails: the dead runtime's pool would keep jest from exiting.
      await holder.close();
    }
  }, 120_000);

  it(`in two processes, the first frozen past its lease (or killed, on SQLite), ${RUNS} runs are taken over with each step executed once, and the first writes nothing more`, async () => {
    const runs = plan('two-process');
    const ledgerPath = join(dir, 'two-process.ledger');
    const holder = WorkerProcess.start(
      'test/crash/fixtures/raceHolder.ts',
      [db.url, ledgerPath, ...runs.map((run) => `${run.key}:${run.holdAt}`)],
      { timeoutMs: 120_000 },
    );
    try {
      await holder.waitForLine(
        () => holder.lines.filter((l) => l.startsWith('held ')).length === RUNS,
      );
      // SQLite: a process frozen inside a write would hold the file's lock; kill it instead.
      const freeze = backend !== 'sqlite-file';
      if (freeze) holder.signal('SIGSTOP');
      else {
        // Dead, not dying: a process still being torn down answers kill(pid, 0), so a runtime
        // opened at that moment would find some of its runs held by a live process.
        holder.kill();
        await holder.exited;
      }
      const { log, ...counts } = await takeOver(db.url, runs, ledgerPath);
      expect(counts).toEqual({ resumed: RUNS, completed: RUNS, duplicateResumes: [] });
      if (freeze) {
        // A frozen holder is alive: nothing was abandoned, and a caller that reached for a run
        // before its lease lapsed was told whose it was and when it would be taken over.
        expect(log.abandoned()).toEqual([]);
        const raced = new Set(runs.map((run) => `race-${run.key}`));
        expect(log.held().filter((runId) => !raced.has(runId))).toEqual([]);
      } else {
        // The dead holder's runs are taken over at once; the worker resumes them all, so the
        // runtime says nothing about runs left running.
        expect(log.abandoned()).toEqual([]);
        expect(log.held()).toEqual([]);
      }
      if (freeze) {
        holder.signal('SIGCONT');
        holder.signal('SIGUSR2');
        await holder.succeeded();
        // Woken, it finished its held steps: every checkpoint write of theirs was fenced out,
        // and its callers got the result the other process stored.
        const heldSteps = new Set(runs.map((run) => `completed race-${run.key} ${run.holdAt}`));
        expect(holder.lines.filter((l) => heldSteps.has(l))).toEqual([]);
        expect(
          holder.lines.filter((l) => l.startsWith('result ') || l.startsWith('stopped ')),
        ).toEqual(runs.map(() => 'result 012'));
      }
      expectEachStepOnce(readStepLedger(ledgerPath), runs);
    } finally {
      holder.signal('SIGCONT');
      holder.kill();
      await holder.exited;
    }
  }, 180_000);
});

/**
 * A second runtime takes the runs over: its worker, a `result()` per run and a direct call
 * per run, each at its seeded moment. Returns how often it resumed and completed each run.
 */
async function takeOver(url: string, runs: RacedRun[], ledgerPath: string) {
  const scope = container.createChildContainer();
  scope.register(STEP_LEDGER_PATH, { useValue: ledgerPath });
  scope.register(RACE_HOLD, { useValue: NO_HOLD });
  // It finds the runs of a dead holder (resumed by its worker, so not reported) or of a frozen
  // one (each caller told that the run is held until its lease lapses).
  const log = new RecordingLogger([HELD_RUN]);
  // A lease long enough that a loaded machine's stalls do not let it lapse while running.
  const runtime = await Waymark.create({
    database: url,
    container: scope,
    leaseDuration: '10s',
    logger: log,
  });
  const resumed = new Map<string, number>();
  let completed = 0;
  // Each run begins executing here once: resumed (or, with nothing recorded yet, started).
  const began = (e: { runId: string }) => resumed.set(e.runId, (resumed.get(e.runId) ?? 0) + 1);
  runtime.on('run.resumed', began);
  runtime.on('run.started', began);
  runtime.on('run.completed', () => completed++);
  try {
    const flow = scope.resolve(RaceFlow);
    const after = <T>(ms: number, work: () => Promise<T>): Promise<T> =>
      new Promise((resolve) => setTimeout(resolve, ms)).then(work);
    runtime.startWorker({ concurrency: 64, pollInterval: '20ms' });
    const results = await Promise.all(
      runs.flatMap((run) => [
        after(run.resultAfterMs, () => runtime.handle<string>(`race-${run.key}`).result()),
        after(run.callAfterMs, () => flow.flow(run.key, run.holdAt)),
      ]),
    );
    expect(new Set(results)).toEqual(new Set(['012']));
    for (const run of runs) {
      const history = await runtime.history(`race-${run.key}`);
      expect(history.map((s) => `${s.name}:${s.status}`)).toEqual([
        'step:completed',
        'step:completed',
        'step:completed',
      ]);
    }
  } finally {
    await runtime.close();
  }
  const duplicateResumes = [...resumed].filter(([, n]) => n > 1).map(([runId]) => runId);
  return { resumed: resumed.size, completed, duplicateResumes, log };
}

/**
 * Steps before the held one ran once (in the first holder), the held step at most twice (the
 * stop interrupted it), and the steps after it once (in the runtime that took over).
 */
function expectEachStepOnce(ledger: ReturnType<typeof readStepLedger>, runs: RacedRun[]): void {
  const counts = new Map<string, number>();
  for (const entry of ledger) {
    const key = `${entry.runId} ${entry.step}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const wrong: string[] = [];
  for (const run of runs) {
    for (let i = 0; i < RACE_STEPS; i++) {
      const n = counts.get(`race-${run.key} s${i}`) ?? 0;
      const allowed = i === run.holdAt ? [1, 2] : [1];
      if (!allowed.includes(n))
        wrong.push(`race-${run.key} s${i} ran ${n}× (held at s${run.holdAt})`);
    }
  }
  expect(wrong).toEqual([]);
}
