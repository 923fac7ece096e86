import { EffectLedger } from 'waymark/testing';
import { createTestDatabase, type TestDatabase } from '../support/databases';
import type { OrderPlan } from './fixtures/ClusterOrder';
import { cluster, createGaleraDatabase, galeraUrl, actedAt } from './support/clusterScript';
import { countFleet, type FleetCounts } from './support/FleetChecks';
import { firstCommitAfter, reportFigures } from './support/figures';
import { runFleet, stopFleet, type FleetEvidence } from './support/FleetRun';

const RUNS = 200;
const PLAN: OrderPlan = { stages: 4, stageMs: 5 };
const KILLED_NODE = 2;
/** Each worker starts on its own node; the second one's node is killed. */
const WORKER_NODES = [
  [1, 2, 3],
  [2, 3, 1],
  [3, 1, 2],
];
/** About a fifth of the 1,000 checkpoints. */
const KILL_AFTER = 200;

describe(`SIGKILL of Galera node ${KILLED_NODE} while 3 worker processes run ${RUNS} runs`, () => {
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
      producerUrl: galeraUrl(database.name, [3, 1, 2]),
      effectsUrl: effectsDb.url,
      runs: RUNS,
      plan: () => PLAN,
      workerOptions: { concurrency: 8, pollInterval: '50ms', leaseDuration: '10s' },
      disruption: {
        when: (committed) => committed >= KILL_AFTER,
        strike: () => actedAt('galera', 'kill', String(KILLED_NODE)),
      },
      deadlineMs: 150_000,
    });
    counts = countFleet(evidence);
  });

  afterAll(async () => {
    if (evidence) await stopFleet(evidence.workers);
    await effects?.close();
    await effectsDb?.drop();
    await database?.drop();
  });

  it('every run completes, with no step lost', () => {
    expect(evidence!.killAt).toBeDefined();
    expect(evidence!.unfinished).toEqual([]);
    expect(counts.completed).toBe(RUNS);
    expect(counts.lostSteps).toEqual([]);
    expect(counts.lostAcknowledged).toEqual([]);
  });

  it('no keyed effect happened twice, and every order was charged', async () => {
    expect(await effects.duplicates()).toEqual([]);
    expect(await effects.entries()).toHaveLength(RUNS);
  });

  it('only steps whose checkpoint was in flight at the kill ran again', () => {
    expect(counts.reRuns.filter((r) => !r.inFlightAtKill)).toEqual([]);
  });

  it('the worker whose node died reconnected to another node and went on committing steps', async () => {
    const { workers, killAt } = evidence!;
    const orphan = workers[WORKER_NODES.findIndex((order) => order[0] === KILLED_NODE)];
    expect(orphan.events('ready')[0].fields[1]).toBe('127.0.0.1:3312');
    // The next listed node (3313) is the first choice, but while the cluster recomputes its
    // primary component that node can answer 1047 too, and the walk goes on to 3311: either
    // is a live node, which is the promise.
    expect(['127.0.0.1:3313', '127.0.0.1:3311']).toContain(await orphan.server());
    expect(orphan.events('step.completed').some((e) => e.at > killAt!)).toBe(true);
    reportFigures('Galera node kill', {
      runs: RUNS,
      steps: counts.bodies,
      killedAfterSteps: evidence!.stepsAtKill,
      completed: counts.completed,
      lostSteps: counts.lostSteps.length,
      duplicatedEffects: (await effects.duplicates()).length,
      inFlightAtKill: counts.inFlightAtKill,
      reRun: counts.reRuns.length,
      firstCommitAnyWorkerMs: firstCommitAfter(evidence!, killAt!) - killAt!,
      firstCommitOrphanMs: firstCommitAfter(evidence!, killAt!, workers.indexOf(orphan)) - killAt!,
      totalMs: evidence!.doneAt - evidence!.goAt,
    });
  });
});
