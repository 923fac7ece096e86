import { LeaseLostError } from '../../../../src/errors/LeaseLostError';
import type { Acquisition } from '../../../../src/runtime/execution/Acquisition';
import { Executions } from '../../../../src/runtime/execution/Executions';
import type { RunOutcome } from '../../../../src/runtime/execution/RunOutcome';
import type { RunOperations } from '../../../../src/runtime/execution/RunScope';
import { RunState } from '../../../../src/runtime/execution/RunState';
import { flowCall } from './memoryRun';

const operations = {} as RunOperations;
const claim = (runId: string, epoch: number) => ({ runId, epoch, token: `t${epoch}` });
const claimed = (runId: string, epoch: number): Acquisition => ({
  kind: 'claimed',
  state: new RunState(claim(runId, epoch), flowCall(), new Map()),
  resumed: false,
});

/** An executor whose executions end when the test says; it records what it executed. */
class Executor {
  readonly executed: RunState[] = [];
  private readonly ends = new Map<RunState, (outcome: RunOutcome) => void>();
  execute(state: RunState): Promise<RunOutcome> {
    this.executed.push(state);
    return new Promise((resolve) => this.ends.set(state, resolve));
  }
  end(state: RunState, outcome: RunOutcome = { status: 'completed', result: state.epoch }): void {
    this.ends.get(state)!(outcome);
  }
}

const neverObserved = { observe: () => new Promise<RunOutcome>(() => undefined) };
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('Executions', () => {
  it('claims and executes a run once when two callers ensure it at the same time', async () => {
    const executor = new Executor();
    const executions = new Executions(executor, neverObserved);
    let acquires = 0;
    const acquire = () => {
      acquires++;
      return Promise.resolve(claimed('r1', 1));
    };
    const a = executions.ensure('r1', {
      kind: 'acquire',
      identity: undefined,
      operations,
      acquire,
    });
    const b = executions.ensure('r1', {
      kind: 'acquire',
      identity: undefined,
      operations,
      acquire,
    });
    expect(b).toBe(a);
    await a.acquired;
    expect(acquires).toBe(1);
    expect(executor.executed).toHaveLength(1);
    executor.end(executor.executed[0]);
    await expect(b.outcome).resolves.toEqual({ status: 'completed', result: 1 });
    expect(executions.find('r1')).toBeUndefined();
  });

  it("holds a worker's claim from the moment it enters: it is renewed while its history loads", async () => {
    const executor = new Executor();
    const executions = new Executions(executor, neverObserved);
    let load!: (acquisition: Acquisition) => void;
    const tracked = executions.ensure('r2', {
      kind: 'claimed',
      identity: undefined,
      operations,
      claim: claim('r2', 4),
      slot: undefined,
      load: () => new Promise((resolve) => (load = resolve)),
    });
    expect(executions.claims()).toEqual([claim('r2', 4)]);
    load(claimed('r2', 4));
    await tracked.acquired;
    await tick();
    executor.end(executor.executed[0]);
    await tracked.outcome;
    expect(executions.claims()).toEqual([]);
  });

  it('lets a caller still acquiring give way to a claim a worker made: one execution, one outcome', async () => {
    const executor = new Executor();
    const executions = new Executions(executor, neverObserved);
    let superseded!: () => boolean;
    let settle!: (acquisition: Acquisition) => void;
    const waiting = executions.ensure('r3', {
      kind: 'acquire',
      identity: undefined,
      operations,
      acquire: (isSuperseded) => {
        superseded = isSuperseded;
        return new Promise((resolve) => (settle = resolve));
      },
    });
    const worker = executions.ensure('r3', {
      kind: 'claimed',
      identity: undefined,
      operations,
      claim: claim('r3', 2),
      slot: undefined,
      load: () => Promise.resolve(claimed('r3', 2)),
    });
    expect(worker).toBe(waiting);
    expect(superseded()).toBe(true);
    settle({ kind: 'held', row: undefined });
    await tick();
    expect(executor.executed.map((state) => state.epoch)).toEqual([2]);
    executor.end(executor.executed[0]);
    await expect(waiting.outcome).resolves.toEqual({ status: 'completed', result: 2 });
  });

  it('stops an execution whose claim was superseded (LeaseLostError), then runs the new claim', async () => {
    const executor = new Executor();
    const executions = new Executions(executor, neverObserved);
    const first = executions.ensure('r4', {
      kind: 'acquire',
      identity: undefined,
      operations,
      acquire: () => Promise.resolve(claimed('r4', 1)),
    });
    await first.acquired;
    await tick();
    const old = executor.executed[0];
    const second = executions.ensure('r4', {
      kind: 'claimed',
      identity: undefined,
      operations,
      claim: claim('r4', 2),
      slot: undefined,
      load: () => Promise.resolve(claimed('r4', 2)),
    });
    expect(old.halted?.error).toBeInstanceOf(LeaseLostError);
    expect(old.cancellation.signal.aborted).toBe(true);
    await tick();
    expect(executor.executed).toHaveLength(1);
    executor.end(old, { status: 'waiting', wakeAt: null });
    await first.outcome;
    await tick();
    expect(executor.executed.map((state) => state.epoch)).toEqual([1, 2]);
    executor.end(executor.executed[1]);
    await expect(second.outcome).resolves.toEqual({ status: 'completed', result: 2 });
  });

  it("counts a worker's slots while its runs execute, and frees them when they end", async () => {
    const executor = new Executor();
    const executions = new Executions(executor, neverObserved);
    const worker = {};
    const enter = (runId: string, queue: string | undefined) =>
      executions.ensure(runId, {
        kind: 'claimed',
        identity: undefined,
        operations,
        claim: claim(runId, 1),
        slot: { owner: worker, queue },
        load: () => Promise.resolve(claimed(runId, 1)),
      });
    const a = enter('s1', undefined);
    enter('s2', 'research');
    expect(executions.occupied(worker)).toBe(2);
    expect(executions.occupied(worker, 'research')).toBe(1);
    expect(executions.occupied({})).toBe(0);
    await a.acquired;
    await tick();
    executor.end(executor.executed[0]);
    await a.outcome;
    expect(executions.occupied(worker)).toBe(1);
  });

  it('forgets a run whose claim failed, so the next caller tries afresh', async () => {
    const executions = new Executions(new Executor(), neverObserved);
    const failed = executions.ensure('r5', {
      kind: 'acquire',
      identity: undefined,
      operations,
      acquire: () => Promise.reject(new Error('database gone')),
    });
    await expect(failed.outcome).rejects.toThrow('database gone');
    expect(executions.find('r5')).toBeUndefined();
  });
});
