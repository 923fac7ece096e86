import { EffectLedger } from 'waymark/testing';
import { createTestDatabase, type TestDatabase } from '../support/databases';
import { invoiceKey, type OrderPlan } from './fixtures/ClusterOrder';
import { cluster, createGaleraDatabase, galeraUrl } from './support/clusterScript';
import { countFleet, plannedSteps } from './support/FleetChecks';
import { runFleet, stopFleet, type FleetEvidence } from './support/FleetRun';

const RUNS = 60;
const INVOICES = 10;
/** Node order of each worker's URL: each starts on its own node. */
const WORKER_NODES = [
  [1, 2, 3],
  [2, 3, 1],
  [3, 1, 2],
];

/** Every third run sleeps, every fourth waits for a signal, the first 20 share invoices by twos. */
function plan(index: number): OrderPlan {
  return {
    stages: 3,
    // Long enough that the fleet's 100 ms look finds the first worker holding runs: at 10 ms,
    // on a loaded machine, every look fell between its runs and the SIGTERM never came.
    stageMs: 40,
    sleep: index % 3 === 0 ? '300ms' : undefined,
    approval: index % 4 === 1,
    invoice: index < 2 * INVOICES ? `inv-${Math.floor(index / 2)}` : undefined,
  };
}

describe('workers on different nodes of a 3-node Galera cluster', () => {
  let database: { name: string; drop(): Promise<void> };
  let effectsDb: TestDatabase;
  let effects: EffectLedger;
  let evidence: FleetEvidence | undefined;
  /** Runs the first worker held when it was sent SIGTERM. */
  let heldAtSigterm: string[] = [];

  beforeAll(async () => {
    await cluster('galera', 'up');
    database = await createGaleraDatabase();
    effectsDb = await createTestDatabase('mariadb');
    effects = await EffectLedger.open(effectsDb.url);
    evidence = await runFleet({
      workerUrls: WORKER_NODES.map((order) => galeraUrl(database.name, order)),
      producerUrl: galeraUrl(database.name, [3, 1, 2]),
      effectsUrl: effectsDb.url,
      runs: RUNS,
      plan,
      workerOptions: { concurrency: 4, pollInterval: '50ms' },
      // A deploy: the first worker is stopped while it executes runs, once it has committed
      // steps of its own. (Waiting on the fleet's count alone struck, on a loaded machine,
      // before the first worker's first commit had got through certification.)
      disruption: {
        when: (committed, workers) =>
          committed >= 60 &&
          workers[0].events('step.completed').length > 0 &&
          workers[0].activeRuns().length > 0,
        strike: async (workers) => {
          heldAtSigterm = workers[0].activeRuns();
          process.kill(workers[0].pid, 'SIGTERM');
          return Date.now();
        },
      },
      deadlineMs: 90_000,
    });
  });

  afterAll(async () => {
    if (evidence) await stopFleet(evidence.workers);
    await effects?.close();
    await effectsDb?.drop();
    await database?.drop();
  });

  it('every run completes with the result an uninterrupted run returns', () => {
    const { results, unfinished } = evidence!;
    expect(unfinished).toEqual([]);
    for (let i = 0; i < RUNS; i++) {
      const result = results.get(`order-${i}`)!;
      const p = plan(i);
      expect(result).toMatchObject({
        orderId: `order-${i}`,
        stages: [1, 2, 3],
        approval: p.approval ? `approver-of-order-${i}` : null,
        charge: { replayed: false },
      });
    }
  });

  it('each worker connected to its own node, and each claim handed a run to one worker only (the hand-over aside)', () => {
    const { workers } = evidence!;
    const servers = workers.map((w) => w.events('ready')[0].fields[1]);
    expect(servers).toEqual(['127.0.0.1:3311', '127.0.0.1:3312', '127.0.0.1:3313']);
    for (const runId of evidence!.runIds) {
      const starts = workers.flatMap((w) => w.events('run.started', runId).map(() => w));
      // A run the stopped worker took without committing a step (some claimed as SIGTERM
      // arrived) is handed over with no history, so the next worker starts it afresh.
      const handedOverFresh =
        starts.length === 2 &&
        starts[0] === workers[0] &&
        workers[0].events('step.completed', runId).length === 0;
      expect({ runId, starts: handedOverFresh ? 1 : starts.length }).toEqual({ runId, starts: 1 });
    }
    const perWorker = workers.map(
      (w, i) =>
        `worker ${i + 1}: ${w.events('run.started').length} started, ` +
        `${w.events('run.resumed').length} resumed, ${w.events('step.completed').length} steps, ` +
        `${w.child.stderr.split('\n').filter(Boolean).length} stderr lines`,
    );
    process.stderr.write(`figures: ${perWorker.join('; ')}\n`);
    const committedOn = workers.map((w, i) => ({
      worker: i + 1,
      committed: w.events('step.completed').length > 0,
    }));
    const idle = committedOn.find((w) => !w.committed);
    if (idle) throw workers[idle.worker - 1].child.failure('committed no step');
  });

  it('each step body ran once: fenced checkpoints, across nodes, through sleeps, signals and the hand-over', () => {
    const counts = countFleet(evidence!);
    expect(counts.lostSteps).toEqual([]);
    expect(counts.lostAcknowledged).toEqual([]);
    expect(counts.reRuns).toEqual([]);
    const planned = evidence!.runIds.flatMap((runId, i) =>
      plannedSteps(plan(i))
        .filter((step) => step !== 'invoice')
        .map((step) => `${runId} ${step}`),
    );
    const executed = evidence!.ledger
      .filter((e) => e.step !== 'invoice')
      .map((e) => `${e.runId} ${e.step}`);
    expect(executed.sort()).toEqual(planned.sort());
  });

  it('a global idempotency key shared by two runs, wherever they run, runs its body once; both runs get its result', async () => {
    const { ledger, results } = evidence!;
    for (let n = 0; n < INVOICES; n++) {
      const pair = [`order-${2 * n}`, `order-${2 * n + 1}`];
      const bodies = ledger.filter((e) => e.step === 'invoice' && pair.includes(e.runId));
      expect(bodies).toHaveLength(1);
      const [a, b] = pair.map((runId) => results.get(runId)!.invoice);
      expect(a).toEqual({ invoice: `inv-${n}`, issuedFor: bodies[0].runId });
      expect(b).toEqual(a);
    }
    expect(await effects.duplicates()).toEqual([]);
    const keys = (await effects.entries()).map((e) => e.key);
    expect(keys).toHaveLength(RUNS + INVOICES);
    for (let n = 0; n < INVOICES; n++) expect(keys).toContain(`charge:${invoiceKey(`inv-${n}`)}`);
  });

  it('sleeping and signalled runs were released and each release was resumed by whichever worker polled first', () => {
    const { workers, histories } = evidence!;
    let elsewhere = 0;
    for (let i = 0; i < RUNS; i++) {
      const p = plan(i);
      const runId = `order-${i}`;
      const waits = (p.sleep ? 1 : 0) + (p.approval ? 1 : 0);
      expect(histories.get(runId)!.length).toBe(plannedSteps(p).length + waits);
      const releases = workers.flatMap((w) => w.events('run.waiting', runId));
      const resumes = workers.flatMap((w) => w.events('run.resumed', runId));
      expect({ runId, resumes: resumes.length >= releases.length }).toEqual({
        runId,
        resumes: true,
      });
      for (const w of workers) {
        const releasedHere = w.events('run.waiting', runId).length;
        const resumedHere = w.events('run.resumed', runId).length;
        if (releasedHere > 0 && resumedHere < releasedHere) elsewhere++;
      }
    }
    process.stderr.write(`Galera guarantees: ${elsewhere} releases resumed by another worker\n`);
  });

  it('a worker stopped with SIGTERM finishes its steps, hands its runs over, and the others continue them', async () => {
    const { workers } = evidence!;
    expect(heldAtSigterm.length).toBeGreaterThan(0);
    expect(await workers[0].child.exited).toEqual({ code: 0, signal: null });
    for (const runId of heldAtSigterm) {
      const finishers = workers
        .filter((w) => w.events('run.completed', runId).length > 0)
        .map((w) => workers.indexOf(w));
      expect(finishers).toHaveLength(1);
    }
    const continuedElsewhere = heldAtSigterm.filter(
      (runId) => workers[0].events('run.completed', runId).length === 0,
    );
    for (const runId of continuedElsewhere) {
      const takenBy = workers.slice(1).filter((w) => w.events('run.resumed', runId).length > 0);
      expect(takenBy.length).toBeGreaterThan(0);
    }
  });
});
