import { container as rootContainer, inject, injectable } from 'tsyringe';
import {
  Step,
  Waymark,
  Workflow,
  WorkflowContext,
  type RuntimeOptions,
  type WaymarkRuntime,
} from 'waymark';
import type { CheckpointWrite } from '../../support/CheckpointWrites';
import { StepHold } from '../../support/StepHold';

const HOLD = Symbol('HOLD');
const RUNS = 8;
const STEPS = 3;

/** How many times each step body ran, by run and seq (one scenario at a time). */
const bodies = new Map<string, number>();

/** Three plain steps; the middle one is held in its body by the scenario's {@link StepHold}. */
@injectable()
export class HeldBatchFlow {
  constructor(
    private readonly ctx: WorkflowContext,
    @inject(HOLD) private readonly hold: StepHold,
  ) {}

  @Workflow({ name: 'held-batch', id: (key: string) => `held-batch-${key}` })
  async run(key: string): Promise<string> {
    let out = key;
    for (let seq = 0; seq < STEPS; seq++) out = await this.step(out, seq);
    return out;
  }

  @Step()
  async step(input: string, seq: number): Promise<string> {
    const key = `${this.ctx.runId} ${seq}`;
    bodies.set(key, (bodies.get(key) ?? 0) + 1);
    if (seq === 1) await this.hold.pass(this.ctx.runId);
    return `${input}.${seq}`;
  }
}

/**
 * Eight runs whose middle steps are held in their bodies, then let go in one turn, so their
 * checkpoints go out together: the first alone, the others in one batch — the batch under
 * test, which always holds the `marked` run's middle step (it reaches its checkpoint last).
 */
export class HeldBatch {
  readonly keys: string[];
  readonly runIds: string[];
  readonly marked: string;
  readonly hold: StepHold;

  constructor(name: string) {
    this.keys = Array.from({ length: RUNS }, (_, i) => `${name}-${i < RUNS - 1 ? i : 'marked'}`);
    this.runIds = this.keys.map((key) => `held-batch-${key}`);
    this.marked = this.runIds[RUNS - 1];
    this.hold = new StepHold(name, RUNS, new Set([this.marked]));
  }

  /** A runtime whose flows `hold` holds (a {@link StepHold} of 0 holds nothing). */
  static open(options: RuntimeOptions, hold: StepHold): Promise<WaymarkRuntime> {
    const scope = rootContainer.createChildContainer();
    scope.register(HOLD, { useValue: hold });
    return Waymark.create({ ...options, container: scope });
  }

  /** What each run returns. */
  results(): string[] {
    return this.keys.map((key) => `${key}.0.1.2`);
  }

  /** Calls every run at once; resolves once each is held, to each call's result or error. */
  async start(runtime: WaymarkRuntime): Promise<Array<Promise<unknown>>> {
    bodies.clear();
    const calls = this.keys.map((key) =>
      runtime.run(HeldBatchFlow, 'run', [key]).then(
        (value) => value,
        (error: unknown) => error,
      ),
    );
    await this.hold.allHeld;
    return calls;
  }

  /** The write that carried the marked run's middle step: the batch under test. */
  batchOf(writes: CheckpointWrite[]): CheckpointWrite {
    const marked = writes.find((w) => w.rows.some((r) => r.runId === this.marked && r.seq === 1));
    if (!marked) throw new Error(`no write carried ${this.marked}'s middle step`);
    expect(marked.rows.length).toBeGreaterThan(1);
    return marked;
  }

  /**
   * Each step body ran once, but those whose rows `batch` carried: at most twice, or with
   * `again: 'exactly'` twice.
   */
  expectBodies(batch: CheckpointWrite, again: 'at most' | 'exactly'): void {
    const inBatch = new Set(batch.rows.map((r) => `${r.runId} ${r.seq}`));
    const wrong: string[] = [];
    for (const runId of this.runIds) {
      for (let seq = 0; seq < STEPS; seq++) {
        const n = bodies.get(`${runId} ${seq}`) ?? 0;
        const allowed = !inBatch.has(`${runId} ${seq}`) ? [1] : again === 'exactly' ? [2] : [1, 2];
        if (!allowed.includes(n)) wrong.push(`${runId} step ${seq} ran ${n}×`);
      }
    }
    expect(wrong).toEqual([]);
  }

  /** The step bodies that ran more than once. */
  repeated(): string[] {
    return [...bodies].filter(([, n]) => n > 1).map(([key]) => key);
  }
}

/** Whether two writes carried the same rows (a statement and its retry). */
export function sameRows(a: CheckpointWrite, b: CheckpointWrite): boolean {
  const key = (w: CheckpointWrite) =>
    w.rows
      .map((r) => `${r.runId} ${r.seq}`)
      .sort()
      .join();
  return key(a) === key(b);
}
