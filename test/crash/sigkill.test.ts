import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Waymark } from 'waymark';
import { createTestDatabase, type Backend, type TestDatabase } from '../support/databases';
import { mulberry32 } from '../support/SeededRandom';
import type { LedgerEntry, LedgerResult } from './fixtures/LedgerWorkflow';
import { WorkerProcess } from './support/WorkerProcess';

const WORKER = 'test/crash/fixtures/ledgerWorker.ts';
const ORDER_ID = 'order-7';
/** The run id `@Workflow({ id })` derives; every database holds the same run. */
const RUN_ID = `ledger-${ORDER_ID}`;
const PARALLEL_PAIR = ['quoteShipping', 'screenFraud'];
const RANDOM_KILLS = 5;
/**
 * Kills land up to this long after the child printed `ready`, not after spawn: starting Node
 * with SWC and opening the database takes 0.7–1 s here and the run about 250 ms, so delays
 * counted from spawn would all kill a process that has not started the run. A short window
 * spreads the kills over the whole run instead of ending it after the first two.
 */
const MAX_KILL_DELAY_MS = 120;
const SEED = Number(process.env.WAYMARK_CRASH_SEED ?? Date.now() % 2 ** 31);

const BACKENDS: Backend[] = ['sqlite-file', 'mariadb'];

describe.each(BACKENDS)('a run in a child process killed with SIGKILL on %s', (backend) => {
  const databases: TestDatabase[] = [];
  const workers: WorkerProcess[] = [];
  let dir: string;
  let reference: { result: LedgerResult; history: string[]; ledger: LedgerEntry[]; pid: number };

  /** A fresh database and ledger file for one scenario. */
  const scenario = async (name: string) => {
    const db = await createTestDatabase(backend);
    databases.push(db);
    return { db, ledgerPath: join(dir, `${name}.ledger`) };
  };
  const startWorker = (db: TestDatabase, ledgerPath: string): WorkerProcess => {
    const worker = WorkerProcess.start(WORKER, [db.url, ledgerPath, ORDER_ID]);
    workers.push(worker);
    return worker;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'waymark-sigkill-'));
    const { db, ledgerPath } = await scenario('reference');
    const worker = startWorker(db, ledgerPath);
    await worker.succeeded();
    reference = {
      result: resultOf(worker),
      history: (await storedRun(db)).history,
      ledger: readLedger(ledgerPath),
      pid: worker.pid,
    };
  }, 30_000);

  afterAll(async () => {
    for (const worker of workers) worker.kill();
    await Promise.all(workers.map((w) => w.exited.catch(() => undefined)));
    for (const db of databases) await db.drop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('an uninterrupted run executes each of its ten steps once', () => {
    expect(reference.history).toHaveLength(10);
    expect(reference.ledger.map((e) => e.step).sort()).toEqual([...reference.history].sort());
    expect(new Set(reference.ledger.map((e) => e.pid))).toEqual(new Set([reference.pid]));
    expect(Object.values(reference.result.committedBy)).toEqual(
      reference.history.map(() => reference.pid),
    );
  });

  it('a run killed with SIGKILL after three steps resumes in a new process without re-running them', async () => {
    const { db, ledgerPath } = await scenario('three-steps');
    const first = startWorker(db, ledgerPath);
    let completed = 0;
    await first.waitForLine((line) => line.startsWith('completed ') && ++completed === 3);
    first.kill();
    expect(await first.exited).toEqual({ code: null, signal: 'SIGKILL' });
    const second = startWorker(db, ledgerPath);
    await second.succeeded();

    const result = resultOf(second);
    const ledger = readLedger(ledgerPath);
    const stored = await storedRun(db);
    expect(result.outcome).toEqual(reference.result.outcome);
    expect(stored).toEqual({ status: 'completed', history: reference.history });

    const beforeKill = completedSteps(first);
    expect(beforeKill.slice(0, 3)).toEqual(reference.history.slice(0, 3));
    for (const step of beforeKill) {
      expect({ step, pids: pidsOf(ledger, step) }).toEqual({ step, pids: [first.pid] });
      expect(second.lines).toContain(`replayed ${reference.history.indexOf(step)} ${step}`);
    }
    expect(reference.history.filter((s) => pidsOf(ledger, s).length > 2)).toEqual([]);
    expect(new Set(ledger.map((e) => e.pid))).toEqual(new Set([first.pid, second.pid]));
    const resumed = second.lines.find((line) => line.startsWith('resumed '));
    expect(Number(resumed?.split(' ')[1])).toBeGreaterThanOrEqual(3);
    expect(ledgerViolations([first, second], ledger, result, reference.history)).toEqual([]);
  }, 30_000);

  it('a run killed at seeded random moments ends as an uninterrupted run did, never re-running a checkpointed step', async () => {
    const { db, ledgerPath } = await scenario('random');
    const random = mulberry32(SEED);
    const delays: number[] = [];
    const processes: WorkerProcess[] = [];
    const killed: WorkerProcess[] = [];
    try {
      // Each process but the last is killed at a random moment; the last must finish.
      for (let kills = 0; ; kills++) {
        const worker = startWorker(db, ledgerPath);
        processes.push(worker);
        if (kills === RANDOM_KILLS) {
          await worker.succeeded();
          break;
        }
        await worker.waitForLine((line) => line.startsWith('ready '));
        const delay = Math.floor(random() * (MAX_KILL_DELAY_MS + 1));
        delays.push(delay);
        await new Promise((resolve) => setTimeout(resolve, delay));
        worker.kill();
        const exit = await worker.exited;
        if (exit.code === 0) break; // it finished the run before the kill landed
        if (exit.signal !== 'SIGKILL') throw worker.failure('ended without being killed');
        killed.push(worker);
      }
      expect(killed.length).toBeGreaterThan(0);

      const last = processes[processes.length - 1];
      const result = resultOf(last);
      const ledger = readLedger(ledgerPath);
      expect(result.outcome).toEqual(reference.result.outcome);
      expect(await storedRun(db)).toEqual({ status: 'completed', history: reference.history });
      expect(ledgerViolations(processes, ledger, result, reference.history)).toEqual([]);
    } catch (error) {
      if (error instanceof Error) {
        error.message =
          `seed ${SEED} (rerun with WAYMARK_CRASH_SEED=${SEED}); kills ${delays.join(', ')} ms ` +
          `after ready, ${killed.length} landed; pids ${processes.map((p) => p.pid).join(', ')}` +
          `\n${error.message}`;
      }
      throw error;
    }
  }, 45_000);
});

/**
 * Every way the ledger shows a checkpointed step running again, as readable messages.
 *
 * The invariant: processes run one after another (each starts after the previous died) and
 * load the run's history when they take it over, so a process sees every checkpoint
 * committed before it started. `committedBy[step]` is the pid whose execution of the step
 * was checkpointed: the stored value carries it, and a replay returns the stored value. If
 * that process is the c-th, then for every step:
 *  - process c executed it exactly once (each process at most once: there are no retries);
 *  - no process after c executed it (it would have replayed the checkpoint);
 *  - a process before c executed it only if it was killed with the step in flight, and a
 *    process has at most one step in flight, or the `Promise.all` pair;
 *  - every `completed` line a process printed names a step that process committed.
 * So a step runs at most once per process alive while it was not yet committed, and never
 * after its checkpoint. All executions of a step also share one idempotency key.
 */
function ledgerViolations(
  processes: WorkerProcess[],
  ledger: LedgerEntry[],
  result: LedgerResult,
  history: string[],
): string[] {
  const violations: string[] = [];
  const order = new Map(processes.map((p, index) => [p.pid, index]));
  const uncommitted = new Map<number, string[]>();
  for (const [seq, step] of history.entries()) {
    const entries = ledger.filter((e) => e.step === step);
    const pids = entries.map((e) => e.pid);
    const committer = order.get(result.committedBy[step]);
    if (committer === undefined) {
      violations.push(`${step}: committed by pid ${result.committedBy[step]}, not one of ours`);
      continue;
    }
    if (new Set(pids).size !== pids.length)
      violations.push(`${step}: executed twice by one process (pids ${pids.join(', ')})`);
    if (!pids.includes(processes[committer].pid))
      violations.push(`${step}: the committing process ${committer} left no ledger entry`);
    for (const pid of pids) {
      const index = order.get(pid);
      if (index === undefined) violations.push(`${step}: executed by unknown pid ${pid}`);
      else if (index > committer)
        violations.push(`${step}: committed by process ${committer}, executed again by ${index}`);
      else if (index < committer) uncommitted.set(index, [...(uncommitted.get(index) ?? []), step]);
    }
    for (const e of entries) {
      if (e.runId !== RUN_ID || e.seq !== seq || e.key !== `${RUN_ID}:${seq}`)
        violations.push(`${step}: ledger entry ${JSON.stringify(e)} has another run, seq or key`);
    }
  }
  for (const [index, steps] of uncommitted) {
    const inFlight =
      steps.length === 1 || (steps.length === 2 && PARALLEL_PAIR.every((s) => steps.includes(s)));
    if (processes[index].exit?.signal !== 'SIGKILL')
      violations.push(`process ${index} left ${steps.join(', ')} uncommitted but was not killed`);
    else if (!inFlight)
      violations.push(`process ${index} left ${steps.join(', ')} uncommitted: more than in flight`);
  }
  for (const [index, worker] of processes.entries()) {
    for (const step of completedSteps(worker)) {
      if (order.get(result.committedBy[step]) !== index)
        violations.push(`process ${index} printed "completed ${step}" but did not commit it`);
    }
  }
  const unknown = ledger.filter((e) => !history.includes(e.step));
  if (unknown.length > 0)
    violations.push(`unknown steps in the ledger: ${JSON.stringify(unknown)}`);
  return violations;
}

/** The run's stored status and step names, read in this process once the children are gone. */
async function storedRun(db: TestDatabase): Promise<{ status: string; history: string[] }> {
  const runtime = await Waymark.create({ database: db.url });
  try {
    return {
      status: await runtime.handle(RUN_ID).status(),
      history: (await runtime.history(RUN_ID)).map((s) => s.name),
    };
  } finally {
    await runtime.close();
  }
}

function readLedger(path: string): LedgerEntry[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as LedgerEntry);
}

function resultOf(worker: WorkerProcess): LedgerResult {
  const line = worker.lines.find((l) => l.startsWith('result '));
  if (!line) throw worker.failure('printed no result');
  return JSON.parse(line.slice('result '.length)) as LedgerResult;
}

/** Names of the steps whose checkpoint the worker reported committed. */
function completedSteps(worker: WorkerProcess): string[] {
  return worker.lines.filter((l) => l.startsWith('completed ')).map((l) => l.split(' ')[2]);
}

function pidsOf(ledger: LedgerEntry[], step: string): number[] {
  return ledger.filter((e) => e.step === step).map((e) => e.pid);
}
