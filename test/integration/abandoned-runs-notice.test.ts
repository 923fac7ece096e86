import { container as rootContainer, type DependencyContainer } from 'tsyringe';
import { createTestRuntime, SimulatedCrash, type TestRuntime } from 'waymark/testing';
import { ALL_BACKENDS, createTestDatabase, type TestDatabase } from '../support/databases';
import { EffectLedger, TravelAgent, type Trip } from '../support/fixtures/TravelAgent';
import { ABANDONED_RUNS, RecordingLogger } from '../support/RecordingLogger';

/** The notice is printed once per process: each test starts as a fresh process would. */
function asFreshProcess(): void {
  delete (process as unknown as Record<symbol, unknown>)[
    Symbol.for('waymark.abandonedRunsNotice.printed')
  ];
}

describe.each(ALL_BACKENDS)('the notice of runs left running, on %s', (backend) => {
  let db: TestDatabase;
  let scope: DependencyContainer;
  let log: RecordingLogger;
  let runtime: TestRuntime;
  let trips = 0;

  beforeAll(async () => {
    db = await createTestDatabase(backend);
  });
  afterAll(async () => {
    await db.drop();
  });
  beforeEach(async () => {
    asFreshProcess();
    scope = rootContainer.createChildContainer();
    scope.registerInstance(EffectLedger, new EffectLedger());
    log = new RecordingLogger([ABANDONED_RUNS]);
    runtime = await createTestRuntime({
      ...{ database: db.url, container: scope, logger: log },
      reportAbandonedRuns: true,
    });
  });
  afterEach(async () => {
    await runtime.close();
  });

  /** Crashes a fresh trip's run after its first checkpoint and restarts: the run is left running. */
  async function leaveRunning(): Promise<Trip> {
    const trip = { requestId: `${backend}-${++trips}-${Date.now()}`, city: 'Oslo', nights: 2 };
    runtime.crash.afterCommit('TravelAgent.normalize');
    await expect(scope.resolve(TravelAgent).plan(trip)).rejects.toThrow(SimulatedCrash);
    runtime = await runtime.restart();
    return trip;
  }

  it('a process that calls the workflow with the abandoned id prints nothing', async () => {
    const trip = await leaveRunning();
    await scope.resolve(TravelAgent).plan(trip);
    await runtime.close();
    expect(log.warnings()).toEqual([]);
  });

  it('a process that starts a worker prints nothing', async () => {
    const trip = await leaveRunning();
    runtime.startWorker({ pollInterval: 10 });
    await runtime.handle(`trip-${trip.requestId}`).result();
    await runtime.close();
    expect(log.warnings()).toEqual([]);
  });

  it('a process that leaves the run is told once, when it closes, not at start-up', async () => {
    const trip = await leaveRunning();
    expect(log.warnings()).toEqual([]);
    await runtime.close();
    expect(log.abandoned()).toEqual([{ count: 1, ids: [`trip-${trip.requestId}`] }]);

    runtime = await runtime.restart();
    await runtime.close();
    expect(log.abandoned()).toHaveLength(1);
  });
});
