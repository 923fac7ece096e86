import { container as rootContainer, injectable, type DependencyContainer } from 'tsyringe';
import {
  NonDeterminismError,
  RunConflictError,
  SerializationError,
  Step,
  Workflow,
  type RunHandle,
} from 'waymark';
import {
  createTestRuntime,
  SimulatedCrash,
  type CrashPoint,
  type TestRuntime,
} from 'waymark/testing';
import { Codec } from '../../src/codec/Codec';
import { ALL_BACKENDS, createTestDatabase, type TestDatabase } from '../support/databases';
import {
  EffectLedger,
  TRAVEL_STEPS,
  TravelAgent,
  type Trip,
} from '../support/fixtures/TravelAgent';

const STEPS = ['normalize', 'findHotel', 'findFlight', 'book'];
const HOOKS: CrashPoint[] = ['before', 'afterEffect', 'afterCommit'];

describe.each(ALL_BACKENDS)('the durable core on %s', (backend) => {
  let db: TestDatabase;
  let runtime: TestRuntime;
  let scope: DependencyContainer;
  let ledger: EffectLedger;

  beforeAll(async () => {
    db = await createTestDatabase(backend);
  });
  afterAll(async () => {
    await db.drop();
  });
  beforeEach(async () => {
    scope = rootContainer.createChildContainer();
    ledger = new EffectLedger();
    scope.registerInstance(EffectLedger, ledger);
    runtime = await createTestRuntime({ database: db.url, container: scope });
  });
  afterEach(async () => {
    await runtime.close();
  });

  const agent = (): TravelAgent => scope.resolve(TravelAgent);
  let requests = 0;
  const freshTrip = (): Trip => ({
    requestId: `${backend}-${++requests}-${Date.now()}`,
    city: ' Lisbon ',
    nights: 3,
  });
  const runIdOf = (input: Trip): string => `trip-${input.requestId}`;

  it('runs each step once, and calling a completed run again executes nothing', async () => {
    const input = freshTrip();
    const first = await agent().plan(input);
    expect(first).toMatchObject({
      city: 'lisbon',
      hotel: 'Hotel lisbon',
      flight: 'WM-6',
      total: 550,
    });
    const again = await agent().plan(input);
    expect(again).toEqual(first);
    for (const step of STEPS) expect(ledger.count(step)).toBe(1);
    const runId = runIdOf(input);
    expect(runtime).toHaveExecutedStepTimes('TravelAgent.book', 1);
    await expect(runtime.handle(runId)).toHaveCompletedSteps(STEPS);
    await expect(runtime.handle(runId)).toHaveRunStatus('completed');
  });

  describe.each(STEPS)('crashed at step %s', (step) => {
    it.each(HOOKS)(
      'at %s, resumes to the same result with completed steps run once',
      async (hook) => {
        const reference = await agent().plan(freshTrip());
        const input = freshTrip();
        const runId = runIdOf(input);
        runtime.crash[hook](`TravelAgent.${step}`);
        await expect(agent().plan(input)).rejects.toThrow(SimulatedCrash);
        const beforeRestart = new Map(STEPS.map((s) => [s, ledger.count(s, runId)]));

        runtime = await runtime.restart();
        const recordedAtCrash = new Set((await runtime.history(runId)).map((s) => s.name));
        const result = await agent().plan(input);

        expect({ ...result, bookingRef: undefined, plannedAt: undefined }).toEqual({
          ...reference,
          bookingRef: undefined,
          plannedAt: undefined,
        });
        await expect(runtime.handle(runId)).toHaveCompletedSteps(STEPS);
        // A step whose checkpoint committed before the crash never runs again; every other
        // step runs once after the restart, on top of what ran before it: the crashed step
        // after its effect, and (timing decides) findHotel, in flight beside findFlight.
        for (const s of STEPS) {
          const expected = beforeRestart.get(s)! + (recordedAtCrash.has(s) ? 0 : 1);
          expect({ step: s, executions: ledger.count(s, runId) }).toEqual({
            step: s,
            executions: expected,
          });
          expect(ledger.count(s, runId)).toBeLessThanOrEqual(2);
        }
        // The crashed step itself: before its body, it had not run; after its effect, it had.
        expect(beforeRestart.get(step)).toBe(hook === 'before' ? 0 : 1);
        expect(recordedAtCrash.has(step)).toBe(hook === 'afterCommit');
        expect(result.bookingRef).toBe(`Hotel lisbon/WM-6/${runId}:4`);
      },
    );
  });

  it('a resumed run sees the same recorded ctx.now() value', async () => {
    const input = freshTrip();
    runtime.crash.before('TravelAgent.book');
    await expect(agent().plan(input)).rejects.toThrow(SimulatedCrash);
    const runId = runIdOf(input);
    await new Promise((resolve) => setTimeout(resolve, 20));
    runtime = await runtime.restart();
    // The value recorded, not the row's finishedAt: that is a second reading of the clock,
    // which may already be a millisecond later.
    const { output } = await runtime.dataSource
      .createQueryBuilder()
      .select('s.output', 'output')
      .from('waymark_steps', 's')
      .where('s.run_id = :runId AND s.name = :name', { runId, name: 'ctx.now' })
      .getRawOne<{ output: string }>()
      .then((row) => row!);
    const recordedNow = new Codec().decode(output, 'ctx.now') as Date;
    const result = await agent().plan(input);
    expect(result.plannedAt).toBe(recordedNow.toISOString());
  });

  it('Promise.all over steps gets the same sequence numbers on every replay', async () => {
    const input = freshTrip();
    runtime.crash.afterCommit('TravelAgent.findFlight');
    await expect(agent().plan(input)).rejects.toThrow(SimulatedCrash);
    runtime = await runtime.restart();
    await agent().plan(input);
    const history = await runtime.history(runIdOf(input));
    expect(history.map((s) => [s.seq, s.name])).toEqual(
      TRAVEL_STEPS.map((name, seq) => [seq, name]),
    );
  });

  it('start() returns a handle once the run is stored; result() waits for it', async () => {
    const input = freshTrip();
    const handle: RunHandle<unknown> = await runtime.start(TravelAgent, 'plan', [input]);
    expect(handle.runId).toBe(runIdOf(input));
    expect(['running', 'completed']).toContain(await handle.status());
    await expect(handle.result()).resolves.toMatchObject({ city: 'lisbon' });
    await expect(handle).toHaveRunStatus('completed');
    await expect(runtime.run(TravelAgent, 'plan', [input], {})).resolves.toMatchObject({
      city: 'lisbon',
    });
  });

  it('recover() resumes a run a dead process left running', async () => {
    const input = freshTrip();
    runtime.crash.afterCommit('TravelAgent.normalize');
    await expect(agent().plan(input)).rejects.toThrow(SimulatedCrash);
    runtime = await runtime.restart();
    const handles = await runtime.recover();
    const runId = runIdOf(input);
    expect(handles.map((h) => h.runId)).toContain(runId);
    const handle = handles.find((h) => h.runId === runId)!;
    await expect(handle.result()).resolves.toMatchObject({ city: 'lisbon', total: 550 });
    expect(ledger.count('normalize', runId)).toBe(1);
  });

  it('list() filters by status and workflow and pages with a cursor', async () => {
    for (let i = 0; i < 3; i++) await agent().plan(freshTrip());
    const first = await runtime.list({ workflow: 'travel', status: 'completed', limit: 2 });
    expect(first.runs).toHaveLength(2);
    expect(first.nextCursor).toBeDefined();
    const second = await runtime.list({
      workflow: 'travel',
      status: 'completed',
      limit: 2,
      cursor: first.nextCursor,
    });
    const ids = [...first.runs, ...second.runs].map((r) => r.runId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(first.runs.every((r) => r.status === 'completed' && r.workflow === 'travel')).toBe(true);
    expect((await runtime.list({ status: 'failed', workflow: 'travel' })).runs).toEqual([]);
  });

  it('a run id reused with other arguments or for another workflow is a RunConflictError', async () => {
    await runtime.run(TravelAgent, 'plan', [{ requestId: 'oslo', city: 'Oslo', nights: 1 }], {
      runId: 'shared-id',
    });
    await expect(
      runtime.run(TravelAgent, 'plan', [{ requestId: 'oslo', city: 'Oslo', nights: 2 }], {
        runId: 'shared-id',
      }),
    ).rejects.toThrow(RunConflictError);
    await expect(runtime.run(Greeter, 'greet', ['x'], { runId: 'shared-id' })).rejects.toThrow(
      /already exists for workflow "travel", not "Greeter.greet"/,
    );
  });

  it('a step error is recorded, and a resume re-throws it so the workflow takes the same branch', async () => {
    const flaky = scope.resolve(FlakyPayments);
    flaky.failuresLeft = 1;
    runtime.crash.afterCommit('FlakyPayments.receipt');
    await expect(flaky.pay('order-1')).rejects.toThrow(SimulatedCrash);
    runtime = await runtime.restart();
    const outcome = await scope.resolve(FlakyPayments).pay('order-1');
    expect(outcome).toEqual({
      paid: false,
      fallback: 'invoice',
      reason: 'PaymentDeclined: card declined (DECLINED)',
    });
    expect(runtime).toHaveExecutedStepTimes('FlakyPayments.charge', 1);
    const history = await runtime.history('pay-order-1');
    expect(history[0]).toMatchObject({
      name: 'charge',
      status: 'failed',
      error: { name: 'PaymentDeclined', code: 'DECLINED' },
    });
  });

  it('a step result that cannot be stored fails the step with a SerializationError naming the path', async () => {
    await expect(scope.resolve(LeakyAgent).run('leak-1')).rejects.toThrow(
      /cannot store result\.client: .*function/,
    );
    const history = await runtime.history('leak-1');
    expect(history).toEqual([expect.objectContaining({ name: 'connect', status: 'failed' })]);
    await expect(runtime.handle('leak-1')).toHaveRunStatus('failed');
    await expect(scope.resolve(LeakyAgent).run('leak-1')).rejects.toBeInstanceOf(
      SerializationError,
    );
  });

  it('a child workflow is a run of its own, memoized in the parent like a step', async () => {
    runtime.crash.afterCommit('Parent.after');
    await expect(scope.resolve(Parent).outer('p1')).rejects.toThrow(SimulatedCrash);
    runtime = await runtime.restart();
    await expect(scope.resolve(Parent).outer('p1')).resolves.toBe('after(child(p1))');
    expect(runtime).toHaveExecutedStepTimes('Parent.inner', 1);
    await expect(runtime.handle('outer-p1/0')).toHaveCompletedSteps(['inner']);
    await expect(runtime.handle('outer-p1')).toHaveCompletedSteps(['Parent.child', 'after']);
  });

  it('a child of a parent whose id has no room for "/<seq>" gets a shortened id that stays the same on resume', async () => {
    const long = 'p'.repeat(248); // 'outer-' + 248 = 254 characters: no room for '/0'
    runtime.crash.afterCommit('Parent.after');
    await expect(scope.resolve(Parent).outer(long)).rejects.toThrow(SimulatedCrash);
    runtime = await runtime.restart();
    await expect(scope.resolve(Parent).outer(long)).resolves.toBe(`after(child(${long}))`);
    expect(runtime).toHaveExecutedStepTimes('Parent.inner', 1);
    const children = (await runtime.list({ workflow: 'Parent.child' })).runs.filter(
      (child) => child.parentRunId === `outer-${long}`,
    );
    expect(children).toHaveLength(1);
    expect(children[0].runId.length).toBeLessThanOrEqual(255);
    expect(children[0].runId).toMatch(/^outer-p+~[0-9a-f]{16}\/0$/);
  });

  it('changing the step order between runs stops the run with NonDeterminismError and keeps its history', async () => {
    const v1 = scope.resolve(OrderV1);
    runtime.crash.afterCommit('Reorder.second');
    await expect(v1.go('o-1')).rejects.toThrow(SimulatedCrash);
    runtime = await runtime.restart();
    const before = await runtime.history('reorder-o-1');
    const error = await scope
      .resolve(OrderV2)
      .go('o-1')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NonDeterminismError);
    expect(error).toMatchObject({
      seq: 0,
      expected: 'first',
      found: 'second',
      runId: 'reorder-o-1',
    });
    await expect(runtime.handle('reorder-o-1')).toHaveRunStatus('needs_attention');
    expect(await runtime.history('reorder-o-1')).toEqual(before);
    await expect(scope.resolve(OrderV2).go('o-1')).rejects.toBeInstanceOf(NonDeterminismError);
  });

  it('two concurrent calls of one run in one process share one execution', async () => {
    const input = freshTrip();
    const [a, b] = await Promise.all([agent().plan(input), agent().plan(input)]);
    expect(a).toEqual(b);
    expect(ledger.count('book')).toBe(1);
  });
});

@injectable()
class Greeter {
  @Workflow()
  async greet(name: string): Promise<string> {
    return `hi ${name}`;
  }
}

class PaymentDeclined extends Error {
  constructor(readonly code: string) {
    super('card declined');
    this.name = 'PaymentDeclined';
  }
}

@injectable()
class FlakyPayments {
  failuresLeft = 0;

  @Workflow({ id: (order: string) => `pay-${order}` })
  async pay(order: string): Promise<{ paid: boolean; fallback?: string; reason?: string }> {
    try {
      await this.charge(order);
      return { paid: true };
    } catch (error) {
      const e = error as Error & { code?: string };
      const fallback = await this.receipt(order);
      return { paid: false, fallback, reason: `${e.name}: ${e.message} (${e.code})` };
    }
  }

  @Step()
  async charge(_order: string): Promise<void> {
    if (this.failuresLeft-- > 0) throw new PaymentDeclined('DECLINED');
  }

  @Step()
  async receipt(_order: string): Promise<string> {
    return 'invoice';
  }
}

@injectable()
class LeakyAgent {
  @Workflow({ id: (id: string) => id })
  async run(_id: string): Promise<string> {
    await this.connect();
    return 'unreachable';
  }

  // Declared storable, so it compiles; at run time it smuggles a function in, as untyped
  // JavaScript or an `any` could.
  @Step()
  async connect(): Promise<{ client: unknown }> {
    return { client: () => undefined };
  }
}

@injectable()
class Parent {
  @Workflow({ id: (id: string) => `outer-${id}` })
  async outer(id: string): Promise<string> {
    const inner = await this.child(id);
    return this.after(inner);
  }

  @Workflow()
  async child(id: string): Promise<string> {
    return this.inner(id);
  }

  @Step()
  async inner(id: string): Promise<string> {
    return `child(${id})`;
  }

  @Step()
  async after(value: string): Promise<string> {
    return `after(${value})`;
  }
}

// Two versions of one workflow, as two deployments would have them. The class name is the
// same, as it would be in the real code base.
const OrderV1 = (() => {
  @injectable()
  class Reorder {
    @Workflow({ name: 'reorder', id: (id: string) => `reorder-${id}` })
    async go(id: string): Promise<string> {
      const a = await this.first(id);
      return this.second(a);
    }

    @Step()
    async first(id: string): Promise<string> {
      return `1:${id}`;
    }

    @Step()
    async second(value: string): Promise<string> {
      return `2:${value}`;
    }
  }
  return Reorder;
})();

const OrderV2 = (() => {
  @injectable()
  class Reorder {
    @Workflow({ name: 'reorder', id: (id: string) => `reorder-${id}` })
    async go(id: string): Promise<string> {
      const b = await this.second(id);
      return this.first(b);
    }

    @Step()
    async first(id: string): Promise<string> {
      return `1:${id}`;
    }

    @Step()
    async second(value: string): Promise<string> {
      return `2:${value}`;
    }
  }
  return Reorder;
})();
