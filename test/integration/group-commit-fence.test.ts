import { container as rootContainer, inject, injectable } from 'tsyringe';
import { DataSource } from 'typeorm';
import {
  Step,
  Waymark,
  Workflow,
  WorkflowContext,
  dataSourceOptionsFromUrl,
  type RuntimeOptions,
  type WaymarkRuntime,
} from 'waymark';
import { CheckpointWrites } from '../support/CheckpointWrites';
import { createTestDatabase, type Backend, type TestDatabase } from '../support/databases';
import { RecordingLogger } from '../support/RecordingLogger';
import { StepHold } from '../support/StepHold';

const HOLD = Symbol('HOLD');

/** How many times each step body ran, by runtime, run and step. */
const bodies = new Map<string, number>();
const ran = (who: string, runId: string, step: number): void => {
  const key = `${who} ${runId} s${step}`;
  bodies.set(key, (bodies.get(key) ?? 0) + 1);
};

@injectable()
class FenceFlow {
  constructor(
    private readonly ctx: WorkflowContext,
    @inject(HOLD) private readonly hold: StepHold,
  ) {}

  @Workflow({ name: 'gc-fence', id: (key: string) => `gc-fence-${key}` })
  async run(_key: string): Promise<string[]> {
    return [await this.step(0), await this.step(1), await this.step(2)];
  }

  @Step()
  async step(index: number): Promise<string> {
    const { runId } = this.ctx;
    ran(this.hold.who, runId, index);
    if (index === 1) await this.hold.pass(runId);
    return `${this.hold.who} ${index}`;
  }
}

const RUNS = 16;

/** A call's result, or how it failed. */
const settledAs = [
  (value: string[]) => value,
  (error: unknown) => `rejected: ${String(error)}`,
] as const;

/** On each backend; on SQLite, two runtimes on one database file. */
const BACKENDS: Backend[] = ['sqlite-file', 'mariadb', 'postgres'];

/**
 * When runtime B takes the victim over: it finishes the run before A's batch goes out (A's
 * row then meets B's stored step and a moved fence), or it has only claimed it (A's row
 * meets the fence alone).
 */
type Takeover = 'finished' | 'claimed';

/**
 * Two runtimes on one database. A runs 16 runs, their middle steps held in their bodies; the
 * victim's lease is made to lapse and B takes the run over. Then A's held steps all reach
 * their checkpoints in one turn, so the victim's row goes in one batch with the others':
 * the fence refuses it alone, every other run completes with A's rows, and the victim's
 * history is B's from the step it took over.
 */
describe.each(BACKENDS)('a fence lost for one run inside a group commit on %s', (backend) => {
  let db: TestDatabase;
  let admin: DataSource;

  beforeAll(async () => {
    db = await createTestDatabase(backend);
    admin = await new DataSource(dataSourceOptionsFromUrl(db.url)).initialize();
  });
  afterAll(async () => {
    await admin?.destroy();
    await db?.drop();
  });

  /** A runtime on the test database whose flow `hold` holds. */
  function open(
    hold: StepHold,
    options: Pick<RuntimeOptions, 'database' | 'logger'> = { database: db.url },
  ): Promise<WaymarkRuntime> {
    const scope = rootContainer.createChildContainer();
    scope.register(HOLD, { useValue: hold });
    return Waymark.create({ ...options, container: scope });
  }

  /** The victim's lease made to lapse, as if A had been frozen past it. */
  async function lapse(runId: string): Promise<void> {
    const placeholder = backend === 'postgres' ? '$1' : '?';
    await admin.query(`UPDATE waymark_runs SET lease_expires_at = 0 WHERE id = ${placeholder}`, [
      runId,
    ]);
  }

  it.each<Takeover>(['finished', 'claimed'])(
    'taken over (%s by another runtime) mid-step, its row fails alone and every other run of the batch completes',
    async (takeover) => {
      bodies.clear();
      const keys = [
        ...Array.from({ length: RUNS - 1 }, (_, i) => `${takeover}-${i}`),
        `${takeover}-victim`,
      ];
      const victim = `gc-fence-${takeover}-victim`;
      const { writes, database } = CheckpointWrites.forUrl(db.url);
      const logA = new RecordingLogger([]);
      const holdA = new StepHold('A', RUNS, new Set([victim]));
      const holdB = new StepHold('B', takeover === 'claimed' ? 1 : 0);
      const a = await open(holdA, { database, logger: logA });
      const b = await open(holdB);
      try {
        const calls = keys.map((key) => a.run(FenceFlow, 'run', [key]).then(...settledAs));
        await holdA.allHeld;
        writes.reset();

        await lapse(victim);
        const byB = b.run(FenceFlow, 'run', [`${takeover}-victim`]);
        if (takeover === 'finished') await expect(byB).resolves.toEqual(['A 0', 'B 1', 'B 2']);
        else await holdB.allHeld;

        holdA.open();
        // The others' batch held the victim's row: once they are answered, so is it.
        const outcomes = await Promise.all(calls.slice(0, -1));
        holdB.open();
        await expect(byB).resolves.toEqual(['A 0', 'B 1', 'B 2']);
        // A's caller of the lost run is answered as a lost lease answers it: with the result
        // of the runtime that took the run over.
        await expect(calls[calls.length - 1]).resolves.toEqual(['A 0', 'B 1', 'B 2']);
        expect(logA.unexpected()).toEqual([]);

        // The victim's row went out with its neighbours', in one write: the rows of every run
        // but the one written alone (on SQLite, whose write is synchronous, that run's next
        // step joins them).
        const shared = writes.together.filter((w) => w.runIds.includes(victim));
        expect(shared.length).toBeGreaterThan(0);
        expect(new Set(shared[0].runIds).size).toBeGreaterThanOrEqual(RUNS - 1);

        const others = keys.slice(0, -1);
        expect(outcomes).toEqual(others.map(() => ['A 0', 'A 1', 'A 2']));
        for (const key of others) {
          const history = await a.history(`gc-fence-${key}`);
          expect(history.map((s) => [s.status, s.output?.json])).toEqual([
            ['completed', '"A 0"'],
            ['completed', '"A 1"'],
            ['completed', '"A 2"'],
          ]);
        }
        const stored = await a.history(victim);
        expect(stored.map((s) => s.output?.json)).toEqual(['"A 0"', '"B 1"', '"B 2"']);
        expect(
          [0, 1, 2].map((i) => [bodies.get(`A ${victim} s${i}`), bodies.get(`B ${victim} s${i}`)]),
        ).toEqual([
          [1, undefined],
          [1, 1],
          [undefined, 1],
        ]);
      } finally {
        holdA.open();
        holdB.open();
        await a.close();
        await b.close();
      }
    },
  );
});
