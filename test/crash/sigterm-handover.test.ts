import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { container } from 'tsyringe';
import { Waymark, type WaymarkRuntime } from 'waymark';
import { createTestDatabase, type TestDatabase } from '../support/databases';
import { StagedWorkflow, type StagedResult } from './fixtures/StagedWorkflow';
import { readStepLedger, STEP_LEDGER_PATH } from './fixtures/StepLedger';
import { QueueWorker, type WorkerEvent } from './support/QueueWorker';

const RUN_ID = 'long-handover';
const STAGES = 10;
const STAGE_MS = 300;
const GRACE_MS = 2_000;
/** Far longer than the test waits: a hand-over that waited for it would show. */
const LEASE = '30s';
/** How soon after W1 exits W2 should be executing the run's next step. */
const HANDOVER_BUDGET_MS = 2_000;
const COMPLETION_DEADLINE_MS = 40_000;

describe('a worker stopped with SIGTERM on MariaDB', () => {
  let db: TestDatabase;
  let dir: string;
  /** Enqueues and reads from the test process; it starts no worker, so it runs nothing. */
  let producer: WaymarkRuntime;
  const workers: QueueWorker[] = [];

  beforeAll(async () => {
    db = await createTestDatabase('mariadb');
    dir = mkdtempSync(join(tmpdir(), 'waymark-handover-'));
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

  it('finishes its step in flight, hands the run back, and another worker continues it at once from the last checkpoint', async () => {
    const ledgerPath = join(dir, 'handover.ledger');
    const barrier = join(dir, 'w2-go');
    const start = (options: { grace?: number; barrier?: string }): QueueWorker => {
      const worker = QueueWorker.start(db.url, ledgerPath, {
        pollInterval: '100ms',
        leaseDuration: LEASE,
        ...options,
      });
      workers.push(worker);
      return worker;
    };
    // W2 starts with W1 but polls only once W1 holds the run, so that W1 is the one to claim it.
    const w1 = start({ grace: GRACE_MS });
    const w2 = start({ barrier });
    await Promise.all([w1.polling(), w2.ready()]);
    await producer.start(StagedWorkflow, 'long', ['handover', STAGES, STAGE_MS], {
      runId: RUN_ID,
      queue: true,
    });
    await w1.took(RUN_ID);
    writeFileSync(barrier, '');
    await w2.polling();
    let w1Steps = 0;
    await w1.child.waitForLine((l) => l.startsWith(`step.completed ${RUN_ID} `) && ++w1Steps === 3);

    const sigtermAt = Date.now();
    const exit = await w1.terminate();
    const w2Done = await Promise.race([
      w2.next('run.completed', RUN_ID),
      new Promise<undefined>((resolve) =>
        setTimeout(() => resolve(undefined), COMPLETION_DEADLINE_MS).unref(),
      ),
    ]);

    const byW1 = stepsOf(w1.events('step.completed', RUN_ID));
    const startedByW2 = w2.events('step.started', RUN_ID);
    const firstW2Step = startedByW2[0];
    const ledger = readStepLedger(ledgerPath);
    const w1Sigterm = w1.events('sigterm')[0];
    const w1LastBody = ledger.filter((e) => e.pid === w1.pid).at(-1);
    const w1LastCheckpoint = w1.events('step.completed', RUN_ID).at(-1);
    const timings = [
      `SIGTERM sent at +0 ms`,
      `W1 started its last step (${w1LastBody?.step ?? 'none'}) at ${rel(w1LastBody?.at, sigtermAt)}`,
      `W1 saw SIGTERM at ${rel(w1Sigterm?.at, sigtermAt)}`,
      `W1 last checkpoint at ${rel(w1LastCheckpoint?.at, sigtermAt)}`,
      `W1 exited (code ${String(exit.code)}) at ${rel(exit.at, sigtermAt)}`,
      `W2 resumed the run at ${rel(w2.events('run.resumed', RUN_ID)[0]?.at, sigtermAt)}`,
      `W2 started ${firstW2Step ? stepsOf([firstW2Step])[0] : 'no step'} at ${rel(firstW2Step?.at, sigtermAt)}`,
      `W2 completed the run at ${rel(w2Done?.at, sigtermAt)}`,
      `W1 checkpointed ${byW1.join(', ')}`,
      `ledger ${ledger.map((e) => `${e.step}@${e.pid === w1.pid ? 'W1' : 'W2'}`).join(', ')}`,
    ].join('\n  ');
    try {
      expect({ code: exit.code, signal: exit.signal }).toEqual({ code: 0, signal: null });
      expect(w2Done).toBeDefined();
      expect(firstW2Step).toBeDefined();
      // Handed over, not left for the lease to lapse: W2 is at work within moments of W1's exit
      // (or even before it: W1 releases the run before it closes its connections).
      expect(firstW2Step.at - exit.at).toBeLessThan(HANDOVER_BUDGET_MS);
      expect(firstW2Step.at - sigtermAt).toBeLessThan(STAGE_MS + HANDOVER_BUDGET_MS);

      // W1 had a step in flight at SIGTERM and finished it within the grace period.
      expect(w1LastBody!.at).toBeLessThanOrEqual(w1Sigterm.at);
      expect(w1LastCheckpoint!.at).toBeGreaterThanOrEqual(w1Sigterm.at);
      // No step ran twice; W1 ran a prefix of the stages, W2 the rest.
      const stages = Array.from({ length: STAGES }, (_, i) => `stage-${i + 1}`);
      expect(ledger.map((e) => e.step)).toEqual(stages);
      expect(ledger.every((e) => e.runId === RUN_ID)).toBe(true);
      expect(byW1.length).toBeGreaterThanOrEqual(3);
      const split = byW1.length;
      expect(byW1).toEqual(stages.slice(0, split));
      expect(ledger.map((e) => e.pid)).toEqual(stages.map((_, i) => (i < split ? w1.pid : w2.pid)));
      expect(stepsOf(startedByW2)).toEqual(stages.slice(split));
      expect(stepsOf(w2.events('step.replayed', RUN_ID))).toEqual(stages.slice(0, split));
      expect(stepsOf(w2.events('step.completed', RUN_ID))).toEqual(stages.slice(split));
      expect(w2.events('run.resumed', RUN_ID).map((e) => Number(e.fields[1]))).toEqual([split]);

      const result = await producer.handle<StagedResult>(RUN_ID).result();
      expect(result.stagePids).toEqual(stages.map((_, i) => (i < split ? w1.pid : w2.pid)));
      expect((await producer.history(RUN_ID)).map((s) => s.status)).toEqual(
        stages.map(() => 'completed'),
      );
      expect(await w2.terminate()).toMatchObject({ code: 0, signal: null });
    } catch (error) {
      if (error instanceof Error) error.message = `timings:\n  ${timings}\n${error.message}`;
      throw error;
    }
  }, 60_000);
});

/**
 * The stages `step.*` events are about, named as in the ledger: every stage is one `stage`
 * step, and stage n is at seq n - 1 (the fields are runId, seq, step).
 */
function stepsOf(events: WorkerEvent[]): string[] {
  return events.map((e) => (e.fields[2] === 'stage' ? `stage-${Number(e.fields[1]) + 1}` : '?'));
}

function rel(at: number | undefined, origin: number): string {
  return at === undefined ? '(never)' : `${at - origin >= 0 ? '+' : ''}${at - origin} ms`;
}
