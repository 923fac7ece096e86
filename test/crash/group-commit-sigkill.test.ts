import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Waymark } from 'waymark';
import type { CheckpointFigures } from '../support/CheckpointWrites';
import { createTestDatabase, type Backend, type TestDatabase } from '../support/databases';
import { deriveSeed, mulberry32, upTo } from '../support/SeededRandom';
import { GROUP_COMMIT_STEPS, type GroupCommitResult } from './fixtures/GroupCommitFlow';
import { readStepLedger, type StepLedgerEntry } from './fixtures/StepLedger';
import { WorkerProcess } from './support/WorkerProcess';

/**
 * Group commit under SIGKILL: one child process runs 32 runs of twenty plain steps at once,
 * so their checkpoints share commits, and is killed at seeded moments — mostly inside a
 * commit, as the steps do nothing else. A new process resumes all 32 by calling them again.
 * Whatever commit a kill cut, each run ends as an uninterrupted one did, and each kill makes
 * each run execute at most its one step in flight again.
 */
const WORKER = 'test/crash/fixtures/groupCommitWorker.ts';
const RUNS = 32;
const RUN_IDS = Array.from({ length: RUNS }, (_, i) => `gc-${i}`);
const KILLS = 2;
/** A process is killed after this many step bodies at most (of 640 in all). */
const MAX_BODIES_BEFORE_KILL = 360;
const SEEDS = process.env.WAYMARK_CRASH_SEED
  ? [Number(process.env.WAYMARK_CRASH_SEED)]
  : [1, 2, 3, 4, 5];
const BACKENDS: Backend[] = ['sqlite-file', 'mariadb', 'postgres'];

describe.each(BACKENDS)(
  '32 runs group-committing in a child killed with SIGKILL on %s',
  (backend) => {
    const databases: TestDatabase[] = [];
    const workers: WorkerProcess[] = [];
    let dir: string;
    let reference: { results: Map<string, GroupCommitResult>; figures: CheckpointFigures };

    const startWorker = (db: TestDatabase, ledgerPath: string): WorkerProcess => {
      const worker = WorkerProcess.start(WORKER, [db.url, ledgerPath, String(RUNS)]);
      workers.push(worker);
      return worker;
    };

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'waymark-gc-sigkill-'));
      const db = await createTestDatabase(backend);
      databases.push(db);
      const ledgerPath = join(dir, 'reference.ledger');
      const worker = startWorker(db, ledgerPath);
      await worker.succeeded();
      reference = { results: resultsOf(worker), figures: figuresOf(worker) };
      const ledger = readStepLedger(ledgerPath);
      expect(ledger).toHaveLength(RUNS * GROUP_COMMIT_STEPS);
      expect(new Set(ledger.map((e) => `${e.runId} ${e.step}`)).size).toBe(ledger.length);
    }, 30_000);

    afterAll(async () => {
      for (const worker of workers) worker.kill();
      await Promise.all(workers.map((w) => w.exited.catch(() => undefined)));
      for (const db of databases) await db.drop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('uninterrupted, the 32 runs share their commits: several checkpoints per write', () => {
      expect(reference.results.size).toBe(RUNS);
      const { rows, writes, largest } = reference.figures;
      expect(rows).toBe(RUNS * GROUP_COMMIT_STEPS);
      // Each checkpoint committed alone would be 640 writes of one row.
      expect(writes).toBeLessThanOrEqual(rows / 4);
      expect(largest).toBeGreaterThanOrEqual(RUNS / 2);
    });

    it.each(SEEDS)(
      'killed at seeded moments (WAYMARK_CRASH_SEED=%i), every run ends as uninterrupted, each kill re-running at most the step in flight',
      async (seed) => {
        const random = mulberry32(deriveSeed(seed, backend));
        const db = await createTestDatabase(backend);
        databases.push(db);
        const ledgerPath = join(dir, `seed-${seed}.ledger`);
        const processes: WorkerProcess[] = [];
        const plan: number[] = [];
        try {
          for (let kills = 0; ; kills++) {
            const worker = startWorker(db, ledgerPath);
            processes.push(worker);
            if (kills === KILLS) {
              await worker.succeeded();
              break;
            }
            const bodies = 1 + upTo(random, MAX_BODIES_BEFORE_KILL - 1);
            plan.push(bodies);
            const landed = await killAfter(worker, bodies, kills > 0);
            if (!landed) break; // it finished every run first
          }
          expect(processes.filter((p) => p.exit?.signal === 'SIGKILL').length).toBeGreaterThan(0);

          const last = processes[processes.length - 1];
          const results = resultsOf(last);
          expect([...results.keys()].sort()).toEqual([...RUN_IDS].sort());
          for (const runId of RUN_IDS) {
            expect({ runId, values: results.get(runId)?.values }).toEqual({
              runId,
              values: reference.results.get(runId)?.values,
            });
          }
          expect(ledgerViolations(processes, readStepLedger(ledgerPath), results)).toEqual([]);
          expect(await storedViolations(db, results)).toEqual([]);
          // The process that finished group-committed too (whatever was left for it).
          const { writes, rows } = figuresOf(last);
          if (rows >= 4 * RUNS) expect(writes).toBeLessThan(rows / 2);
        } catch (error) {
          if (error instanceof Error) {
            error.message =
              `${backend} seed ${seed} (rerun with WAYMARK_CRASH_SEED=${seed}); killed after ` +
              `${plan.join(', ')} bodies; pids ${processes.map((p) => p.pid).join(', ')}\n${error.message}`;
          }
          throw error;
        }
      },
      60_000,
    );
  },
);

/**
 * Kills `worker` once it has begun `bodies` step bodies — and, when it resumed runs another
 * process left, once each of its runs has also committed a step here (or ended): the step a
 * kill left in flight then runs again here and commits before the next kill, so no body runs
 * a third time. Resolves whether the kill landed (false: the worker finished first).
 */
async function killAfter(
  worker: WorkerProcess,
  bodies: number,
  resumed: boolean,
): Promise<boolean> {
  let begun = 0;
  const settled = new Set<string>();
  const moment = (line: string): boolean => {
    const [kind, runId] = line.split(' ');
    if (kind === 'ran') begun++;
    else if (kind === 'completed' || kind === 'result') settled.add(runId);
    return begun >= bodies && (!resumed || settled.size === RUNS);
  };
  const reached = await worker.waitForLine(moment).then(
    () => true,
    () => false,
  );
  worker.kill();
  const exit = await worker.exited;
  if (exit.code === 0) return false;
  if (!reached || exit.signal !== 'SIGKILL') throw worker.failure('ended without being killed');
  return true;
}

/**
 * Every way the ledger shows a step executed more often than the kills allow. Processes ran
 * one after another, each loading every checkpoint committed before it started, so for each
 * step of each run, with `c` the process whose execution was checkpointed (its pid is in the
 * result, which a replay returns as stored): `c` executed it once; no later process did; an
 * earlier one did only if it was killed with the step in flight — at most one step per run
 * per killed process — so no body ran more than twice.
 */
function ledgerViolations(
  processes: WorkerProcess[],
  ledger: StepLedgerEntry[],
  results: Map<string, GroupCommitResult>,
): string[] {
  const violations: string[] = [];
  const order = new Map(processes.map((p, index) => [p.pid, index]));
  for (const runId of RUN_IDS) {
    const inFlight = new Map<number, number[]>();
    const committedBy = results.get(runId)?.committedBy ?? [];
    for (let seq = 0; seq < GROUP_COMMIT_STEPS; seq++) {
      const what = `${runId} s${seq}`;
      const pids = ledger
        .filter((e) => e.runId === runId && e.step === `s${seq}`)
        .map((e) => e.pid);
      const committer = order.get(committedBy[seq]);
      if (committer === undefined) {
        violations.push(`${what}: committed by pid ${committedBy[seq]}, not one of ours`);
        continue;
      }
      if (pids.length > 2) violations.push(`${what}: executed ${pids.length} times`);
      if (new Set(pids).size !== pids.length) violations.push(`${what}: twice in one process`);
      if (!pids.includes(processes[committer].pid))
        violations.push(`${what}: its committing process ${committer} left no ledger line`);
      for (const pid of pids) {
        const index = order.get(pid);
        if (index === undefined) violations.push(`${what}: executed by unknown pid ${pid}`);
        else if (index > committer)
          violations.push(`${what}: committed by process ${committer}, executed again by ${index}`);
        else if (index < committer) inFlight.set(index, [...(inFlight.get(index) ?? []), seq]);
      }
    }
    for (const [index, seqs] of inFlight) {
      if (processes[index].exit?.signal !== 'SIGKILL')
        violations.push(`${runId}: process ${index} left s${seqs.join(', s')} but was not killed`);
      else if (seqs.length > 1)
        violations.push(
          `${runId}: process ${index} left s${seqs.join(', s')}: more than in flight`,
        );
    }
  }
  const known = new Set(RUN_IDS);
  for (const e of ledger) {
    if (!known.has(e.runId))
      violations.push(`a ledger line of an unknown run: ${JSON.stringify(e)}`);
  }
  return violations;
}

/** Each run completed, its history all twenty steps, each holding the value its result has. */
async function storedViolations(
  db: TestDatabase,
  results: Map<string, GroupCommitResult>,
): Promise<string[]> {
  const violations: string[] = [];
  const runtime = await Waymark.create({ database: db.url });
  try {
    for (const runId of RUN_IDS) {
      const status = await runtime.handle(runId).status();
      if (status !== 'completed') violations.push(`${runId}: ${status}`);
      const result = results.get(runId);
      const stored = (await runtime.history(runId)).map((s) => ({
        seq: s.seq,
        name: s.name,
        status: s.status,
        output: s.output ? (JSON.parse(s.output.json) as unknown) : undefined,
      }));
      const expected = Array.from({ length: GROUP_COMMIT_STEPS }, (_, seq) => ({
        seq,
        name: 'step',
        status: 'completed',
        output: { value: result?.values[seq], pid: result?.committedBy[seq] },
      }));
      if (stored.length !== expected.length)
        violations.push(`${runId}: ${stored.length} steps stored`);
      const wrong = expected.find((e, i) => JSON.stringify(stored[i]) !== JSON.stringify(e));
      if (wrong) violations.push(`${runId}: stored ${JSON.stringify(stored[wrong.seq])}`);
    }
  } finally {
    await runtime.close();
  }
  return violations;
}

function resultsOf(worker: WorkerProcess): Map<string, GroupCommitResult> {
  const results = new Map<string, GroupCommitResult>();
  for (const line of worker.lines.filter((l) => l.startsWith('result '))) {
    const [, runId, json] = /^result (\S+) (.*)$/.exec(line)!;
    results.set(runId, JSON.parse(json) as GroupCommitResult);
  }
  return results;
}

function figuresOf(worker: WorkerProcess): CheckpointFigures {
  const line = worker.lines.find((l) => l.startsWith('checkpoints '));
  if (!line) throw worker.failure('printed no checkpoint figures');
  return JSON.parse(line.slice('checkpoints '.length)) as CheckpointFigures;
}
