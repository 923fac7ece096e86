import { EffectLedger } from 'waymark/testing';
import { createTestDatabase, type TestDatabase } from '../support/databases';
import type { OrderPlan } from './fixtures/ClusterOrder';
import {
  cluster,
  createGaleraDatabase,
  GALERA_PORTS,
  galeraUrl,
  mysqlAdmin,
} from './support/clusterScript';
import type { ClusterWorker } from './support/ClusterWorker';
import { countFleet, type FleetCounts } from './support/FleetChecks';
import { firstCommitAfter, reportFigures } from './support/figures';
import { runFleet, stopFleet, type FleetEvidence } from './support/FleetRun';

const RUNS = 100;
const PLAN: OrderPlan = { stages: 4, stageMs: 40 };
const ISOLATED_NODE = 3;
const WORKER_NODES = [
  [1, 2, 3],
  [2, 3, 1],
  [3, 1, 2],
];

/** The worker whose first node is the one cut off. */
const STRANDED = WORKER_NODES.findIndex((order) => order[0] === ISOLATED_NODE);

/** Whether `worker` holds a run that has not yet started its last two stages. */
function holdsRunWithStepsToStart(worker: ClusterWorker): boolean {
  return worker.activeRuns().some((runId) => {
    const started = worker.events('step.started', runId).map((e) => Number(e.fields[1]));
    return Math.max(-1, ...started) < PLAN.stages - 2;
  });
}

/** Cuts node 3 off from the others (Galera's own switch): it stays up, outside the quorum. */
function isolate(on: boolean): Promise<void> {
  return mysqlAdmin(
    GALERA_PORTS[ISOLATED_NODE],
    `SET GLOBAL wsrep_provider_options = 'gmcast.isolate=${on ? 1 : 0}'`,
  );
}

describe(`Galera node ${ISOLATED_NODE} cut off from the cluster while 3 worker processes run ${RUNS} runs`, () => {
  let database: { name: string; drop(): Promise<void> };
  let effectsDb: TestDatabase;
  let effects: EffectLedger;
  let evidence: FleetEvidence | undefined;
  let counts: FleetCounts;

  beforeAll(async () => {
    await cluster('galera', 'up');
    database = await createGaleraDatabase();
    effectsDb = await createTestDatabase('mariadb');
    effects = await EffectLedger.open(effectsDb.url);
    evidence = await runFleet({
      workerUrls: WORKER_NODES.map((order) => galeraUrl(database.name, order)),
      producerUrl: galeraUrl(database.name, [1, 2, 3]),
      effectsUrl: effectsDb.url,
      runs: RUNS,
      plan: () => PLAN,
      workerOptions: { concurrency: 8, pollInterval: '50ms', leaseDuration: '10s' },
      disruption: {
        // The cut lands while the worker on node 3 holds a run with steps still to start:
        // it keeps that run's lease, so only it can go on with it, through another node.
        // (Cut between its runs, it may find every run taken by the time it has moved.)
        when: (committed, workers) =>
          committed >= RUNS && holdsRunWithStepsToStart(workers[STRANDED]),
        strike: async () => {
          await isolate(true);
          return Date.now();
        },
      },
      deadlineMs: 120_000,
    });
    counts = countFleet(evidence);
  });

  afterAll(async () => {
    if (evidence) await stopFleet(evidence.workers);
    await effects?.close();
    await effectsDb?.drop();
    await isolate(false).catch(() => undefined);
    // Until node 3 is back in the cluster and synced, for the suites after this one.
    await cluster('galera', 'up');
    await database?.drop();
  });

  it('every run completes, with no step lost and no keyed effect doubled', async () => {
    expect(evidence!.unfinished).toEqual([]);
    expect(counts.lostSteps).toEqual([]);
    expect(counts.lostAcknowledged).toEqual([]);
    expect(await effects.duplicates()).toEqual([]);
    expect(counts.reRuns.filter((r) => !r.inFlightAtKill)).toEqual([]);
  });

  it('the worker on the cut-off node, which answers every statement with WSREP not ready (1047), moves to the next node and goes on', async () => {
    const { workers, killAt } = evidence!;
    const stranded = workers[STRANDED];
    expect(stranded.events('ready')[0].fields[1]).toBe('127.0.0.1:3313');
    expect(await stranded.server()).toBe('127.0.0.1:3311');
    const moved = firstCommitAfter(evidence!, killAt!, workers.indexOf(stranded));
    // Show what it printed if it never committed there: its events say whether it still
    // held runs, and its stderr what its store said.
    if (moved === Infinity) throw stranded.child.failure('committed nothing after the cut');
    reportFigures('Galera node cut off (non-primary)', {
      runs: RUNS,
      completed: counts.completed,
      lostSteps: counts.lostSteps.length,
      reRun: counts.reRuns.length,
      firstCommitAnyWorkerMs: firstCommitAfter(evidence!, killAt!) - killAt!,
      firstCommitStrandedMs: moved - killAt!,
    });
  });
});
