import { EffectLedger } from 'waymark/testing';
import { createTestDatabase, type TestDatabase } from '../support/databases';
import type { OrderPlan } from './fixtures/ClusterOrder';
import { cluster, actedAt, postgresUrl } from './support/clusterScript';
import { countFleet, type FleetCounts } from './support/FleetChecks';
import { firstCommitAfter, reportFigures } from './support/figures';
import { runFleet, stopFleet, type FleetEvidence } from './support/FleetRun';

const RUNS = 120;
const PLAN: OrderPlan = { stages: 4, stageMs: 5 };
const WORKERS = 3;
/** About a quarter of the 600 checkpoints. */
const KILL_AFTER = 150;

describe('PostgreSQL with a synchronous standby: the primary is SIGKILLed mid-run and the standby promoted', () => {
  let effectsDb: TestDatabase;
  let effects: EffectLedger;
  let evidence: FleetEvidence | undefined;
  let counts: FleetCounts;
  let promotedAt = 0;

  beforeAll(async () => {
    await cluster('postgres', 'up', 'sync');
    effectsDb = await createTestDatabase('mariadb');
    effects = await EffectLedger.open(effectsDb.url);
    evidence = await runFleet({
      workerUrls: Array.from({ length: WORKERS }, () => postgresUrl()),
      producerUrl: postgresUrl(),
      effectsUrl: effectsDb.url,
      runs: RUNS,
      plan: () => PLAN,
      workerOptions: {
        concurrency: 8,
        pollInterval: '50ms',
        leaseDuration: '10s',
        storeRetryTimeout: '60s',
      },
      disruption: {
        when: (committed) => committed >= KILL_AFTER,
        strike: () => actedAt('postgres', 'kill-primary'),
        // What an operator (or Patroni) does: promote the standby at once.
        recover: async () => {
          promotedAt = await actedAt('postgres', 'promote');
        },
      },
      deadlineMs: 150_000,
    });
    counts = countFleet(evidence);
  });

  afterAll(async () => {
    if (evidence) await stopFleet(evidence.workers);
    await effects?.close();
    await effectsDb?.drop();
    await cluster('postgres', 'stop');
  });

  it('every run completes, with no step lost and no acknowledged checkpoint missing', () => {
    expect(evidence!.killAt).toBeDefined();
    expect(evidence!.unfinished).toEqual([]);
    expect(counts.completed).toBe(RUNS);
    expect(counts.lostSteps).toEqual([]);
    expect(counts.lostAcknowledged).toEqual([]);
  });

  it('no keyed effect happened twice, and every order was charged once', async () => {
    expect(await effects.duplicates()).toEqual([]);
    expect(await effects.entries()).toHaveLength(RUNS);
  });

  it('steps whose checkpoint was in flight at the kill may run again (at-least-once), and only those', () => {
    expect(counts.reRuns.filter((r) => !r.inFlightAtKill)).toEqual([]);
  });

  it('the workers reconnect to the promoted standby by themselves', async () => {
    const { workers, killAt } = evidence!;
    for (const worker of workers) {
      // A worker that died in the failover is a failure of its own: show what it printed.
      if (!worker.child.running) throw worker.child.failure('died during the failover');
      expect(worker.events('ready')[0].fields[1]).toBe('127.0.0.1:5433');
      expect(await worker.server()).toBe('127.0.0.1:5434');
    }
    const firstCommit = firstCommitAfter(evidence!, killAt!);
    reportFigures('PostgreSQL failover (synchronous standby)', {
      runs: RUNS,
      steps: counts.bodies,
      killedAfterSteps: evidence!.stepsAtKill,
      completed: counts.completed,
      lostSteps: counts.lostSteps.length,
      lostAcknowledged: counts.lostAcknowledged.length,
      duplicatedEffects: (await effects.duplicates()).length,
      inFlightAtKill: counts.inFlightAtKill,
      reRun: counts.reRuns.length,
      killToPromotedMs: promotedAt - killAt!,
      killToFirstCommitMs: firstCommit - killAt!,
      totalMs: evidence!.doneAt - evidence!.goAt,
    });
  });
});
