import { LeaseLostError } from '../../../src/errors/LeaseLostError';
import {
  GroupCommit,
  type GroupCommitBounds,
  type GroupCommitLanes,
} from '../../../src/store/GroupCommit';
import { newRunRowOf, type RunRow, type StepRow } from '../../../src/store/rows';
import type { FencedFinish, FinishBatches, FinishLanding } from '../../../src/store/FinishBatches';
import type { RunFinish, RunStore } from '../../../src/store/RunStore';
import type { NewRun, StartBatches, StartLanding } from '../../../src/store/StartBatches';
import type { FencedStep, StepBatches, StepLanding } from '../../../src/store/StepBatches';

type Answer = 'inserted' | 'duplicate';

/** A write the test settles when it chooses. */
interface Pending<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

function pending<T>(): Pending<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { promise, resolve, reject };
}

/**
 * The store under the queue, as the queue sees it: every one-row insert and every batch is
 * recorded and left pending until the test settles it.
 */
class FakeStore {
  readonly alone: Array<{ row: StepRow; epoch: number; write: Pending<Answer> }> = [];
  readonly batches: Array<{ steps: FencedStep[]; write: Pending<StepLanding[]> }> = [];
  readonly createdAlone: Array<{ row: RunRow; leaseMs: number | null; write: Pending<boolean> }> =
    [];
  readonly finishedAlone: Array<{ runId: string; epoch: number; write: Pending<void> }> = [];
  readonly finishBatches: Array<{ finishes: FencedFinish[]; write: Pending<FinishLanding[]> }> = [];

  readonly runs = {
    insertStep: (row: StepRow, epoch: number): Promise<Answer> => {
      const write = pending<Answer>();
      this.alone.push({ row, epoch, write });
      return write.promise;
    },
    insertRun: (row: RunRow, leaseMs: number | null): Promise<boolean> => {
      const write = pending<boolean>();
      this.createdAlone.push({ row, leaseMs, write });
      return write.promise;
    },
    finishRun: (runId: string, epoch: number): Promise<void> => {
      const write = pending<void>();
      this.finishedAlone.push({ runId, epoch, write });
      return write.promise;
    },
  } as unknown as RunStore;

  readonly stepBatches = {
    write: (steps: readonly FencedStep[]): Promise<StepLanding[]> => {
      const write = pending<StepLanding[]>();
      this.batches.push({ steps: [...steps], write });
      return write.promise;
    },
  } as unknown as StepBatches;

  readonly starts: Array<{ runs: NewRun[]; write: Pending<StartLanding[]> }> = [];

  readonly writers = {
    starts: {
      write: (runs: readonly NewRun[]): Promise<StartLanding[]> => {
        const write = pending<StartLanding[]>();
        this.starts.push({ runs: [...runs], write });
        return write.promise;
      },
    } as unknown as StartBatches,
    steps: this.stepBatches,
    finishes: {
      write: (finishes: readonly FencedFinish[]): Promise<FinishLanding[]> => {
        const write = pending<FinishLanding[]>();
        this.finishBatches.push({ finishes: [...finishes], write });
        return write.promise;
      },
    } as unknown as FinishBatches,
  };

  /** Runs of the rows of each batch so far, in order. */
  batchRuns(): string[][] {
    return this.batches.map((b) => b.steps.map((s) => s.row.runId));
  }

  aloneRuns(): string[] {
    return this.alone.map((a) => a.row.runId);
  }
}

const WIDE: GroupCommitBounds = { maxRows: 500, maxBytes: 4 * 1024 * 1024 };
const ONE_LANE: GroupCommitLanes = { count: 1, fewestRows: 1 };
const TWO_LANES: GroupCommitLanes = { count: 2, fewestRows: 2 };

function row(runId: string, output = '"ok"'): StepRow {
  return {
    runId,
    seq: 0,
    name: 'step',
    status: 'completed',
    output,
    attempts: 1,
    startedAt: 1,
    finishedAt: 2,
  };
}

/** Lets the queue's promise callbacks and its next tick run. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Which of `promises` have settled, and how, without waiting for the others. */
async function states(promises: Array<Promise<Answer>>): Promise<string[]> {
  const seen = promises.map(() => 'pending');
  promises.forEach((p, i) => {
    p.then(
      (value) => (seen[i] = value),
      (error: unknown) => (seen[i] = `rejected: ${(error as Error).message}`),
    );
  });
  await settle();
  return seen;
}

const inserted = (n: number): StepLanding[] =>
  Array.from({ length: n }, () => ({ status: 'fulfilled', value: 'inserted' }));

describe('GroupCommit', () => {
  it('writes the first row alone and at once, and answers with the store’s answer', async () => {
    const store = new FakeStore();
    const queue = new GroupCommit(store.runs, store.writers, WIDE, ONE_LANE);
    const first = queue.insertStep(row('a'), 7);
    expect(store.alone.map((a) => [a.row.runId, a.epoch])).toEqual([['a', 7]]);
    store.alone[0].write.resolve('duplicate');
    await expect(first).resolves.toBe('duplicate');
    await settle();
    expect(store.batches).toEqual([]);
  });

  it('holds the rows that arrive during a commit, then writes them together in one batch', async () => {
    const store = new FakeStore();
    const queue = new GroupCommit(store.runs, store.writers, WIDE, ONE_LANE);
    const first = queue.insertStep(row('a'), 1);
    const rest = ['b', 'c', 'd'].map((runId, i) => queue.insertStep(row(runId), 10 + i));
    await settle();
    expect(store.aloneRuns()).toEqual(['a']);
    expect(store.batches).toEqual([]);

    store.alone[0].write.resolve('inserted');
    await expect(first).resolves.toBe('inserted');
    await settle();
    expect(store.batchRuns()).toEqual([['b', 'c', 'd']]);
    expect(store.batches[0].steps.map((s) => s.epoch)).toEqual([10, 11, 12]);
    // Each row's promise waits for the COMMIT that holds it.
    expect(await states(rest)).toEqual(['pending', 'pending', 'pending']);

    store.batches[0].write.resolve([
      { status: 'fulfilled', value: 'inserted' },
      { status: 'fulfilled', value: 'duplicate' },
      { status: 'fulfilled', value: 'inserted' },
    ]);
    expect(await states(rest)).toEqual(['inserted', 'duplicate', 'inserted']);
    expect(store.aloneRuns()).toEqual(['a']);
  });

  it('lets the steps a commit released reach their next checkpoints before the next commit starts', async () => {
    const store = new FakeStore();
    const queue = new GroupCommit(store.runs, store.writers, WIDE, ONE_LANE);
    const first = queue.insertStep(row('a'), 1);
    // As steps do: the answer of one checkpoint runs on to the next, in a promise callback.
    const onward = ['b', 'c'].map((runId) =>
      queue.insertStep(row(runId), 1).then(() => queue.insertStep(row(`${runId}2`), 1)),
    );
    store.alone[0].write.resolve('inserted');
    await first;
    await settle();
    expect(store.batchRuns()).toEqual([['b', 'c']]);
    store.batches[0].write.resolve(inserted(2));
    await settle();
    // b2 and c2 arrived in the callbacks of the answer that released them: one commit, not
    // b2 alone with c2 waiting behind it.
    expect(store.batchRuns()).toEqual([
      ['b', 'c'],
      ['b2', 'c2'],
    ]);
    expect(store.aloneRuns()).toEqual(['a']);
    store.batches[1].write.resolve(inserted(2));
    await expect(Promise.all(onward)).resolves.toEqual(['inserted', 'inserted']);
  });

  it('writes at most maxRows rows in one commit, the oldest first, and a last one alone', async () => {
    const store = new FakeStore();
    const queue = new GroupCommit(store.runs, store.writers, { ...WIDE, maxRows: 2 }, ONE_LANE);
    const first = queue.insertStep(row('a'), 1);
    const rest = ['b', 'c', 'd', 'e', 'f'].map((runId) => queue.insertStep(row(runId), 1));
    store.alone[0].write.resolve('inserted');
    await first;
    await settle();
    expect(store.batchRuns()).toEqual([['b', 'c']]);
    store.batches[0].write.resolve(inserted(2));
    await settle();
    expect(store.batchRuns()).toEqual([
      ['b', 'c'],
      ['d', 'e'],
    ]);
    store.batches[1].write.resolve(inserted(2));
    await settle();
    // One row left: written as a row alone is, not as a batch of one.
    expect(store.batches).toHaveLength(2);
    expect(store.aloneRuns()).toEqual(['a', 'f']);
    store.alone[1].write.resolve('inserted');
    expect(await states(rest)).toEqual(Array(5).fill('inserted'));
  });

  it('writes at most maxBytes of values in one commit, and a row larger than that alone', async () => {
    const store = new FakeStore();
    const queue = new GroupCommit(
      store.runs,
      store.writers,
      { maxRows: 500, maxBytes: 1024 },
      ONE_LANE,
    );
    const small = (runId: string) => row(runId, 'x'.repeat(400));
    const first = queue.insertStep(row('a'), 1);
    const rest = [
      queue.insertStep(small('b'), 1),
      queue.insertStep(small('c'), 1),
      queue.insertStep(row('big', 'y'.repeat(5000)), 1),
      queue.insertStep(small('d'), 1),
      queue.insertStep(small('e'), 1),
      queue.insertStep(small('f'), 1),
    ];
    store.alone[0].write.resolve('inserted');
    await first;
    await settle();
    // Two rows of ~470 bytes fit in 1 KiB; the big one does not join them.
    expect(store.batchRuns()).toEqual([['b', 'c']]);
    store.batches[0].write.resolve(inserted(2));
    await settle();
    // Over the bound by itself, it still commits: alone.
    expect(store.aloneRuns()).toEqual(['a', 'big']);
    store.alone[1].write.resolve('inserted');
    await settle();
    expect(store.batchRuns()).toEqual([
      ['b', 'c'],
      ['d', 'e'],
    ]);
    store.batches[1].write.resolve(inserted(2));
    await settle();
    expect(store.aloneRuns()).toEqual(['a', 'big', 'f']);
    store.alone[2].write.resolve('inserted');
    expect(await states(rest)).toEqual(Array(6).fill('inserted'));
  });

  it('fails every row of a batch whose commit failed, then goes on with the next rows', async () => {
    const store = new FakeStore();
    const queue = new GroupCommit(store.runs, store.writers, WIDE, ONE_LANE);
    const first = queue.insertStep(row('a'), 1);
    const batch = [queue.insertStep(row('b'), 1), queue.insertStep(row('c'), 1)];
    store.alone[0].write.resolve('inserted');
    await first;
    await settle();
    const later = [queue.insertStep(row('d'), 1), queue.insertStep(row('e'), 1)];
    store.batches[0].write.reject(new Error('connection lost during COMMIT'));
    expect(await states(batch)).toEqual([
      'rejected: connection lost during COMMIT',
      'rejected: connection lost during COMMIT',
    ]);
    expect(store.batchRuns()).toEqual([
      ['b', 'c'],
      ['d', 'e'],
    ]);
    store.batches[1].write.resolve(inserted(2));
    expect(await states(later)).toEqual(['inserted', 'inserted']);
  });

  it('fails only the row the batch refused (a lost fence), not its neighbours', async () => {
    const store = new FakeStore();
    const queue = new GroupCommit(store.runs, store.writers, WIDE, ONE_LANE);
    const first = queue.insertStep(row('a'), 1);
    const batch = ['b', 'lost', 'c'].map((runId) => queue.insertStep(row(runId), 1));
    store.alone[0].write.resolve('inserted');
    await first;
    await settle();
    store.batches[0].write.resolve([
      { status: 'fulfilled', value: 'inserted' },
      { status: 'rejected', reason: new LeaseLostError('lost', 1) },
      { status: 'fulfilled', value: 'inserted' },
    ]);
    const seen = await states(batch);
    expect([seen[0], seen[2]]).toEqual(['inserted', 'inserted']);
    await expect(batch[1]).rejects.toBeInstanceOf(LeaseLostError);
  });

  it('goes on after the row written alone failed: that row fails, the waiting ones commit', async () => {
    const store = new FakeStore();
    const queue = new GroupCommit(store.runs, store.writers, WIDE, ONE_LANE);
    const first = queue.insertStep(row('a'), 1);
    const waiting = [queue.insertStep(row('b'), 1), queue.insertStep(row('c'), 1)];
    store.alone[0].write.reject(new LeaseLostError('a', 1));
    await expect(first).rejects.toBeInstanceOf(LeaseLostError);
    await settle();
    expect(store.batchRuns()).toEqual([['b', 'c']]);
    store.batches[0].write.resolve(inserted(2));
    expect(await states(waiting)).toEqual(['inserted', 'inserted']);
  });

  it('writes the next row at once again after the queue emptied', async () => {
    const store = new FakeStore();
    const queue = new GroupCommit(store.runs, store.writers, WIDE, ONE_LANE);
    const first = queue.insertStep(row('a'), 1);
    const batch = [queue.insertStep(row('b'), 1), queue.insertStep(row('c'), 1)];
    store.alone[0].write.resolve('inserted');
    await first;
    await settle();
    store.batches[0].write.resolve(inserted(2));
    await Promise.all(batch);
    await settle();

    const alone = queue.insertStep(row('d'), 1);
    expect(store.aloneRuns()).toEqual(['a', 'd']);
    store.alone[1].write.resolve('inserted');
    await expect(alone).resolves.toBe('inserted');
    await settle();
    expect(store.batches).toHaveLength(1);
  });

  it('writes one run’s next checkpoint at once, in the callback of the answer before it', async () => {
    const store = new FakeStore();
    const queue = new GroupCommit(store.runs, store.writers, WIDE, ONE_LANE);
    // As one run does: each answer runs on to the next checkpoint in a promise callback.
    const seen: string[][] = [];
    const second = queue.insertStep(row('a'), 1).then(() => {
      const next = queue.insertStep(row('a2'), 1);
      seen.push(store.aloneRuns());
      return next;
    });
    store.alone[0].write.resolve('inserted');
    await Promise.resolve();
    await Promise.resolve();
    await Promise.resolve();
    // Written in that callback, not held for a tick: a lone run's step waits for nothing.
    expect(seen).toEqual([['a', 'a2']]);
    store.alone[1].write.resolve('inserted');
    await expect(second).resolves.toBe('inserted');

    // The same after a commit of one row that waited behind another.
    const behind = queue.insertStep(row('b'), 1);
    const waited = queue.insertStep(row('c'), 1).then(() => {
      const next = queue.insertStep(row('c2'), 1);
      seen.push(store.aloneRuns());
      return next;
    });
    store.alone[2].write.resolve('inserted');
    await behind;
    await settle();
    // A commit of one row is written as a row alone is.
    expect(store.aloneRuns()).toEqual(['a', 'a2', 'b', 'c']);
    store.alone[3].write.resolve('inserted');
    await Promise.resolve();
    await Promise.resolve();
    await Promise.resolve();
    expect(seen[1]).toEqual(['a', 'a2', 'b', 'c', 'c2']);
    store.alone[4].write.resolve('inserted');
    await expect(waited).resolves.toBe('inserted');
  });

  describe('with two lanes (PostgreSQL: commits overlap on two connections)', () => {
    it('starts a second commit for the rows that arrive while one is in flight, never a third', async () => {
      const store = new FakeStore();
      const queue = new GroupCommit(store.runs, store.writers, WIDE, TWO_LANES);
      const first = queue.insertStep(row('a'), 1);
      const second = ['b', 'c'].map((runId) => queue.insertStep(row(runId), 1));
      await settle();
      expect(store.aloneRuns()).toEqual(['a']);
      expect(store.batchRuns()).toEqual([['b', 'c']]);
      // Both lanes busy: these wait for a commit to land.
      const third = ['d', 'e'].map((runId) => queue.insertStep(row(runId), 1));
      await settle();
      expect(store.batchRuns()).toEqual([['b', 'c']]);
      expect(await states(third)).toEqual(['pending', 'pending']);

      store.alone[0].write.resolve('inserted');
      await expect(first).resolves.toBe('inserted');
      await settle();
      expect(store.batchRuns()).toEqual([
        ['b', 'c'],
        ['d', 'e'],
      ]);
      store.batches[0].write.resolve(inserted(2));
      store.batches[1].write.resolve(inserted(2));
      expect(await states([...second, ...third])).toEqual(Array(4).fill('inserted'));
    });

    it('hands back a landed commit’s rows in two shares: the second after the next commit started', async () => {
      const store = new FakeStore();
      const queue = new GroupCommit(store.runs, store.writers, WIDE, TWO_LANES);
      const order: string[] = [];
      const realWrite = store.stepBatches.write.bind(store.stepBatches);
      store.stepBatches.write = (steps) => {
        order.push(`commit ${steps.map((s) => s.row.runId).join(' ')}`);
        return realWrite(steps);
      };
      const first = queue.insertStep(row('a'), 1);
      // Four runs whose checkpoints run on to the next ones, as steps do.
      const onward = ['b', 'c', 'd', 'e'].map((runId) =>
        queue.insertStep(row(runId), 1).then((answer) => {
          order.push(`${runId} answered`);
          return queue.insertStep(row(`${runId}2`), 1).then(() => answer);
        }),
      );
      await settle();
      store.alone[0].write.resolve('inserted');
      await first;
      await settle();
      order.length = 0;
      // Nothing else in flight: half the rows now, half once their neighbours' commit is off.
      store.batches[0].write.resolve(inserted(4));
      await settle();
      expect(order).toEqual([
        'b answered',
        'c answered',
        'commit b2 c2',
        'd answered',
        'e answered',
        'commit d2 e2',
      ]);
      store.batches[1].write.resolve(inserted(2));
      store.batches[2].write.resolve(inserted(2));
      await expect(Promise.all(onward)).resolves.toEqual(Array(4).fill('inserted'));
    });

    it('opens the second lane only for enough rows to be worth a commit of their own', async () => {
      const store = new FakeStore();
      const queue = new GroupCommit(store.runs, store.writers, WIDE, {
        count: 2,
        fewestRows: 3,
      });
      const first = queue.insertStep(row('a'), 1);
      const few = ['b', 'c'].map((runId) => queue.insertStep(row(runId), 1));
      await settle();
      // Two rows beside a commit in flight: they wait for it rather than commit on their own.
      expect(store.batchRuns()).toEqual([]);
      const more = queue.insertStep(row('d'), 1);
      await settle();
      expect(store.batchRuns()).toEqual([['b', 'c', 'd']]);
      store.alone[0].write.resolve('inserted');
      store.batches[0].write.resolve(inserted(3));
      await expect(first).resolves.toBe('inserted');
      expect(await states([...few, more])).toEqual(Array(3).fill('inserted'));
    });

    it('keeps each held row’s own answer: a lost fence fails only its step', async () => {
      const store = new FakeStore();
      const queue = new GroupCommit(store.runs, store.writers, WIDE, TWO_LANES);
      const first = queue.insertStep(row('a'), 1);
      const batch = ['b', 'c', 'lost', 'd'].map((runId) => queue.insertStep(row(runId), 1));
      await settle();
      store.alone[0].write.resolve('inserted');
      await first;
      await settle();
      store.batches[0].write.resolve([
        { status: 'fulfilled', value: 'inserted' },
        { status: 'fulfilled', value: 'duplicate' },
        { status: 'rejected', reason: new LeaseLostError('lost', 1) },
        { status: 'fulfilled', value: 'inserted' },
      ]);
      const seen = await states(batch);
      expect([seen[0], seen[1], seen[3]]).toEqual(['inserted', 'duplicate', 'inserted']);
      await expect(batch[2]).rejects.toBeInstanceOf(LeaseLostError);
    });
  });

  describe('runs’ endings', () => {
    const completed: RunFinish = {
      status: 'completed',
      result: '1',
      error: null,
      parkedReason: null,
    };

    it('writes an ending alone and at once when nothing is in flight', async () => {
      const store = new FakeStore();
      const queue = new GroupCommit(store.runs, store.writers, WIDE, ONE_LANE);
      const ended = queue.finishRun('a', 3, completed, 10);
      expect(store.finishedAlone.map((f) => [f.runId, f.epoch])).toEqual([['a', 3]]);
      store.finishedAlone[0].write.resolve();
      await expect(ended).resolves.toBeUndefined();
      await settle();
      expect(store.finishBatches).toEqual([]);
    });

    it('joins the next commit beside checkpoints, each settled only after its own statement', async () => {
      const store = new FakeStore();
      const queue = new GroupCommit(store.runs, store.writers, WIDE, ONE_LANE);
      const first = queue.insertStep(row('a'), 1);
      const step = queue.insertStep(row('b'), 1);
      const endings = ['c', 'd'].map((runId) => queue.finishRun(runId, 2, completed, 10));
      await settle();
      expect(store.finishedAlone).toEqual([]);
      store.alone[0].write.resolve('inserted');
      await first;
      await settle();
      // One commit: its checkpoints in one statement, its endings in another beside it.
      expect(store.batchRuns()).toEqual([['b']]);
      expect(store.finishBatches.map((b) => b.finishes.map((f) => [f.runId, f.epoch]))).toEqual([
        [
          ['c', 2],
          ['d', 2],
        ],
      ]);
      store.batches[0].write.resolve(inserted(1));
      await settle();
      // The checkpoints' statement landed; the endings' has not: nobody of the batch is told.
      expect(await states([step])).toEqual(['pending']);
      const lost = expect(endings[1]).rejects.toBeInstanceOf(LeaseLostError);
      store.finishBatches[0].write.resolve([
        { status: 'fulfilled', value: undefined },
        { status: 'rejected', reason: new LeaseLostError('d', 2) },
      ]);
      await expect(step).resolves.toBe('inserted');
      await expect(endings[0]).resolves.toBeUndefined();
      await lost;
    });

    it('fails only the endings when their statement fails, not the checkpoints beside them', async () => {
      const store = new FakeStore();
      const queue = new GroupCommit(store.runs, store.writers, WIDE, ONE_LANE);
      const first = queue.insertStep(row('a'), 1);
      const steps = ['b', 'c'].map((runId) => queue.insertStep(row(runId), 1));
      const ending = queue.finishRun('d', 1, completed, 10);
      await settle();
      store.alone[0].write.resolve('inserted');
      await first;
      await settle();
      const refused = expect(ending).rejects.toThrow('connection lost');
      store.batches[0].write.resolve(inserted(2));
      store.finishBatches[0].write.reject(new Error('connection lost'));
      expect(await states(steps)).toEqual(['inserted', 'inserted']);
      await refused;
    });

    it('writes a batch of endings alone in one statement, without a checkpoint statement', async () => {
      const store = new FakeStore();
      const queue = new GroupCommit(store.runs, store.writers, WIDE, ONE_LANE);
      const first = queue.insertStep(row('a'), 1);
      const endings = ['b', 'c'].map((runId) => queue.finishRun(runId, 1, completed, 10));
      await settle();
      store.alone[0].write.resolve('inserted');
      await first;
      await settle();
      expect(store.batches).toEqual([]);
      expect(store.finishBatches.map((b) => b.finishes.map((f) => f.runId))).toEqual([['b', 'c']]);
      store.finishBatches[0].write.resolve([
        { status: 'fulfilled', value: undefined },
        { status: 'fulfilled', value: undefined },
      ]);
      await expect(Promise.all(endings)).resolves.toEqual([undefined, undefined]);
    });
  });

  describe('new runs', () => {
    const newRun = (id: string): RunRow =>
      newRunRowOf({ id, workflow: 'flow', version: null, args: '[]', epoch: 1, createdAt: 1 });

    it('creates a run alone and at once when nothing is in flight', async () => {
      const store = new FakeStore();
      const queue = new GroupCommit(store.runs, store.writers, WIDE, ONE_LANE);
      const created = queue.insertRun(newRun('a'), 30_000);
      expect(store.createdAlone.map((c) => [c.row.id, c.leaseMs])).toEqual([['a', 30_000]]);
      store.createdAlone[0].write.resolve(false);
      await expect(created).resolves.toBe(false);
      await settle();
      expect(store.starts).toEqual([]);
    });

    it('creates the runs started during a commit together, each answered with its own landing', async () => {
      const store = new FakeStore();
      const queue = new GroupCommit(store.runs, store.writers, WIDE, ONE_LANE);
      const first = queue.insertRun(newRun('a'), 30_000);
      const rest = ['b', 'c', 'd'].map((id) => queue.insertRun(newRun(id), 30_000));
      const step = queue.insertStep(row('x'), 1);
      await settle();
      store.createdAlone[0].write.resolve(true);
      await expect(first).resolves.toBe(true);
      await settle();
      // One commit: the new runs in one statement, the checkpoint in another beside it.
      expect(store.starts.map((s) => s.runs.map((r) => r.row.id))).toEqual([['b', 'c', 'd']]);
      expect(store.batchRuns()).toEqual([['x']]);
      const refused = expect(rest[2]).rejects.toThrow('disk full');
      store.starts[0].write.resolve([
        { status: 'fulfilled', value: true },
        { status: 'fulfilled', value: false },
        { status: 'rejected', reason: new Error('disk full') },
      ]);
      store.batches[0].write.resolve(inserted(1));
      await expect(Promise.all(rest.slice(0, 2))).resolves.toEqual([true, false]);
      await refused;
      await expect(step).resolves.toBe('inserted');
    });
  });
});
