import { StepRecords } from '../../../../src/runtime/execution/StepRecords';
import { Step } from '../../../../src/decorators/Step';
import { compileClass, planOf } from '../../../../src/decorators/Plans';
import type { StepPlan } from '../../../../src/decorators/StepPlan';
import { LeaseLostError } from '../../../../src/errors/LeaseLostError';
import { NonDeterminismError } from '../../../../src/errors/NonDeterminismError';
import { realClock } from '../../../../src/ground/Clock';
import { GlobalKeyClaims } from '../../../../src/runtime/execution/GlobalKeyClaims';
import { HandOver } from '../../../../src/runtime/execution/HandOver';
import type { LimiterGate } from '../../../../src/runtime/execution/LimiterGate';
import { RunScope, type RunOperations } from '../../../../src/runtime/execution/RunScope';
import { RunState } from '../../../../src/runtime/execution/RunState';
import { StepAttempts } from '../../../../src/runtime/execution/StepAttempts';
import { StepOutcomes } from '../../../../src/runtime/execution/StepOutcomes';
import { StepPath } from '../../../../src/runtime/execution/StepPath';
import { StepReplay } from '../../../../src/runtime/execution/StepReplay';
import { AtMostOnceWriter } from '../../../../src/runtime/execution/writers/AtMostOnceWriter';
import { GlobalKeyWriter } from '../../../../src/runtime/execution/writers/GlobalKeyWriter';
import { PlainWriter } from '../../../../src/runtime/execution/writers/PlainWriter';
import { RefusedTransactionalWriter } from '../../../../src/runtime/execution/writers/RefusedTransactionalWriter';
import { openMemoryStore, type MemoryStore } from './memoryRun';

class Pay {
  @Step()
  charge(cents: number): Promise<string> {
    return Promise.resolve(`charged ${cents}`);
  }

  @Step()
  refund(cents: number): Promise<string> {
    return Promise.resolve(`refunded ${cents}`);
  }
}
compileClass(Pay);
const planFor = (method: 'charge' | 'refund') => planOf(Pay, method) as StepPlan;
/** The step path reads the run from its scope; the runtime's other operations are not used. */
const operations = {} as RunOperations;

describe('StepPath', () => {
  let db: MemoryStore;
  let path: StepPath;
  beforeEach(async () => {
    db = await openMemoryStore();
    const { stores, store, codec, events, lifecycle, self } = db;
    const clock = realClock;
    const replay = new StepReplay(codec, events);
    const records = new StepRecords(store);
    const claims = new GlobalKeyClaims(store, stores.keys, clock, lifecycle, {
      self,
      waitMs: 1000,
    });
    path = new StepPath({
      replay,
      attempts: new StepAttempts({
        ...{ store, codec, clock, events, hooks: {}, lifecycle },
        ...{ durableDelayMs: 30_000, limiters: {} as LimiterGate },
      }),
      outcomes: new StepOutcomes(store, records, codec, clock, events, replay),
      writers: {
        plain: new PlainWriter(records),
        atMostOnce: new AtMostOnceWriter(store),
        globalKey: new GlobalKeyWriter(stores, claims, clock),
        transactional: new RefusedTransactionalWriter(),
      },
      invoker: { intercept: (_step, next) => next() },
      handOver: new HandOver(stores.runClaims, clock, lifecycle),
      ...{ clock, events, hooks: {}, lifecycle },
    });
  });
  afterEach(() => db.close());

  /** Calls `method(cents)` as step `seq` of `run`, counting how often its body runs. */
  const counted = { bodies: 0 };
  const call = (run: RunState, seq: number, method: 'charge' | 'refund', cents: number) =>
    path.call(RunScope.forRun(operations, run), seq, {
      plan: planFor(method),
      args: [cents],
      body: () => {
        counted.bodies++;
        // The body as the dispatcher hands it over: the undecorated method.
        return Promise.resolve(`${method === 'charge' ? 'charged' : 'refunded'} ${cents}`);
      },
    });
  beforeEach(() => (counted.bodies = 0));

  /** The run as a resumed process sees it: its history loaded in one query. */
  const resumed = async (run: RunState): Promise<RunState> => {
    const { steps } = await db.store.loadHistory(run.runId);
    return new RunState(run.claim, run.call, new Map(steps.map((s) => [s.seq, s])));
  };

  it('runs a new step once and records its result', async () => {
    const run = await db.claimedRun('path-1');
    await expect(call(run, 0, 'charge', 500)).resolves.toBe('charged 500');
    expect(counted.bodies).toBe(1);
    const { steps } = await db.store.loadHistory('path-1');
    expect(steps).toEqual([
      expect.objectContaining({ seq: 0, name: 'charge', status: 'completed' }),
    ]);
  });

  it('does not execute a completed step again on resume: it returns the recorded result', async () => {
    const run = await db.claimedRun('path-2');
    await call(run, 0, 'charge', 500);
    counted.bodies = 0;
    await expect(call(await resumed(run), 0, 'charge', 500)).resolves.toBe('charged 500');
    expect(counted.bodies).toBe(0);
  });

  it('stops a run whose code now calls another step at a recorded seq (NonDeterminismError)', async () => {
    const run = await db.claimedRun('path-3');
    await call(run, 0, 'charge', 500);
    const again = await resumed(run);
    await expect(call(again, 0, 'refund', 500)).rejects.toBeInstanceOf(NonDeterminismError);
    expect(again.halted?.kind).toBe('attention');
    expect(counted.bodies).toBe(1);
  });

  it('fails with LeaseLostError when another process took the run over before the checkpoint', async () => {
    const run = await db.claimedRun('path-4');
    await db.takeOver('path-4');
    await expect(call(run, 0, 'charge', 500)).rejects.toBeInstanceOf(LeaseLostError);
    expect((await db.store.loadHistory('path-4')).steps).toEqual([]);
  });
});
