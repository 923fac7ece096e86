import * as fc from 'fast-check';
import type { CrashOptions, CrashPoint } from 'waymark/testing';
import { MAX_ATTEMPTS, type Op, type Program, type StepOp } from './Interpreter';

type Unnumbered<T> = T extends unknown ? Omit<T, 'seq'> : never;
type RawStep = Unnumbered<StepOp>;
type RawOp = RawStep | { kind: 'all'; steps: RawStep[] } | { kind: 'now' } | { kind: 'uuid' };

const rawStep: fc.Arbitrary<RawStep> = fc.oneof(
  fc.record({ kind: fc.constant('plain' as const), value: fc.integer({ min: 0, max: 99 }) }),
  fc.record({
    kind: fc.constant('flaky' as const),
    failures: fc.integer({ min: 1, max: MAX_ATTEMPTS }),
  }),
  fc.record({ kind: fc.constant('broken' as const) }),
);

const rawOp: fc.Arbitrary<RawOp> = fc.oneof(
  { arbitrary: rawStep, weight: 4 },
  {
    arbitrary: fc.record({
      kind: fc.constant('all' as const),
      steps: fc.array(rawStep, { minLength: 2, maxLength: 4 }),
    }),
    weight: 2,
  },
  { arbitrary: fc.record({ kind: fc.constantFrom('now' as const, 'uuid' as const) }), weight: 1 },
);

/** Numbers the ops as the runtime will: one seq per step or value, in call order. */
function layout(raw: RawOp[]): Program {
  let seq = 0;
  const numbered = (step: RawStep): StepOp => ({ ...step, seq: seq++ });
  return raw.map((op): Op => {
    if (op.kind === 'all') return { kind: 'all', steps: op.steps.map(numbered) };
    if (op.kind === 'now' || op.kind === 'uuid') return { kind: op.kind, seq: seq++ };
    return numbered(op);
  });
}

/** Programs of 1 to 8 ops with at least one step to crash in. */
export const programs: fc.Arbitrary<Program> = fc
  .array(rawOp, { minLength: 1, maxLength: 8 })
  .filter((ops) => ops.some((op) => op.kind !== 'now' && op.kind !== 'uuid'))
  .map(layout);

/** A crash, before it is aimed at a program: which step call, which hook, which occurrence. */
export interface CrashSpec {
  /** Index (modulo the number of step calls) of the step call to aim at. */
  readonly pick: number;
  readonly point: CrashPoint;
  /** `'seq'`: only that call; a number: that many crashes at any call of that step method. */
  readonly occurrence: 'seq' | number;
}

/** One to three crashes. */
export const crashSpecs: fc.Arbitrary<CrashSpec[]> = fc.array(
  fc.record({
    pick: fc.nat({ max: 31 }),
    point: fc.constantFrom<CrashPoint>('before', 'afterEffect', 'afterCommit'),
    occurrence: fc.oneof(fc.constant('seq' as const), fc.integer({ min: 1, max: 2 })),
  }),
  { minLength: 1, maxLength: 3 },
);

/** A crash rule as given to `runtime.crash[point](target, options)`. */
export interface CrashRule {
  readonly point: CrashPoint;
  readonly target: string;
  readonly options: CrashOptions;
}

/** Every step call of a program, group members included, in seq order. */
export function stepsOf(program: Program): StepOp[] {
  return program.flatMap((op) =>
    op.kind === 'all' ? op.steps : op.kind === 'now' || op.kind === 'uuid' ? [] : [op],
  );
}

/** The seqs of the group each grouped step belongs to, by seq. */
export function groupsOf(program: Program): Map<number, number[]> {
  const groups = new Map<number, number[]>();
  for (const op of program) {
    if (op.kind !== 'all') continue;
    const seqs = op.steps.map((step) => step.seq);
    for (const seq of seqs) groups.set(seq, seqs);
  }
  return groups;
}

/** Aims each spec at a step call of `program`. */
export function crashPlan(program: Program, specs: CrashSpec[]): CrashRule[] {
  const steps = stepsOf(program);
  return specs.map(({ pick, point, occurrence }) => {
    const step = steps[pick % steps.length];
    const options = occurrence === 'seq' ? { seq: step.seq } : { times: occurrence };
    return { point, target: `Interpreter.${step.kind}`, options };
  });
}

/** The attempt whose outcome is recorded: the first success, or the last one allowed. */
export function finalAttempt(step: StepOp): number {
  return step.kind === 'flaky' ? Math.min(step.failures + 1, MAX_ATTEMPTS) : 1;
}

/** `#0 plain(7) · all[#1 flaky(fails 2), #2 broken] · #3 now`. */
export function renderProgram(program: Program): string {
  const step = (s: StepOp): string =>
    s.kind === 'plain'
      ? `#${s.seq} plain(${s.value})`
      : s.kind === 'flaky'
        ? `#${s.seq} flaky(${s.failures >= MAX_ATTEMPTS ? 'exhausts' : `fails ${s.failures}`})`
        : `#${s.seq} broken`;
  return program
    .map((op) =>
      op.kind === 'all'
        ? `all[${op.steps.map(step).join(', ')}]`
        : op.kind === 'now' || op.kind === 'uuid'
          ? `#${op.seq} ${op.kind}`
          : step(op),
    )
    .join(' · ');
}

/** `afterEffect Interpreter.plain {seq: 2}; before Interpreter.flaky {times: 2}`. */
export function renderPlan(plan: CrashRule[]): string {
  return plan
    .map(({ point, target, options }) =>
      options.seq === undefined
        ? `${point} ${target} {times: ${options.times ?? 1}}`
        : `${point} ${target} {seq: ${options.seq}}`,
    )
    .join('; ');
}
