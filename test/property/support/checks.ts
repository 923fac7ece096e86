import { isDeepStrictEqual } from 'node:util';
import type { StepRecord } from 'waymark';
import type { CrashPoint } from 'waymark/testing';
import {
  MAX_ATTEMPTS,
  type Entry,
  type Execution,
  type Observation,
  type Program,
  type StepOp,
  type ValueOp,
} from './Interpreter';
import { finalAttempt, groupsOf, stepsOf } from './programs';

/** How one life of the crashed run ended, and what was stored when it did. */
export interface Life {
  readonly point: CrashPoint;
  readonly seq: number;
  readonly at: string;
  /** `history(runId)` read by the next life before it called the workflow again. */
  readonly stored: StepRecord[];
}

/** An uninterrupted run: the reference. */
export interface Reference {
  readonly result: Entry[];
  readonly history: StepRecord[];
  readonly executions: Execution[];
}

/** A run crashed and restarted until it completed. */
export interface Recovered extends Reference {
  readonly runId: string;
  readonly lives: Life[];
  readonly observations: Observation[];
  readonly status: string;
  /** The completed run called once more. */
  readonly again: Entry[];
  /** Step executions that call caused: none. */
  readonly executedAgain: number;
  /** Step executions the runtime's own `executions` log counted for the run. */
  readonly logged: number;
}

type Problems = string[];

const json = (value: unknown): string => JSON.stringify(value);

/** `#3 flaky completed ×2`, plus the error name of a failed step. */
export function describeRecord(r: StepRecord): string {
  return `#${r.seq} ${r.name} ${r.status} ×${r.attempts}${r.error ? ` ${r.error.name}` : ''}`;
}

const isStored = (r: StepRecord | undefined): boolean =>
  r?.status === 'completed' || r?.status === 'failed';

function valueOps(program: Program): Array<{ op: ValueOp; index: number }> {
  return program.flatMap((op, index) =>
    op.kind === 'now' || op.kind === 'uuid' ? [{ op, index }] : [],
  );
}

/** The result with each recorded value replaced by a placeholder: they differ between runs. */
function normalized(program: Program, result: Entry[]): Entry[] {
  const copy = [...result];
  for (const { op, index } of valueOps(program)) copy[index] = `${op.kind}:*`;
  return copy;
}

/** The recovered run returns what the reference returned and stores the same history. */
export function checkOutcome(program: Program, ref: Reference, run: Recovered): Problems {
  const problems: Problems = [];
  if (!isDeepStrictEqual(normalized(program, run.result), normalized(program, ref.result))) {
    problems.push(`result ${json(run.result)} differs from the reference ${json(ref.result)}`);
  }
  const expected = ref.history.map(describeRecord);
  const actual = run.history.map(describeRecord);
  if (!isDeepStrictEqual(actual, expected)) {
    problems.push(
      `history [${actual.join(', ')}] differs from the reference [${expected.join(', ')}]`,
    );
  }
  if (run.status !== 'completed') problems.push(`run status is ${run.status}, not completed`);
  if (!isDeepStrictEqual(run.again, run.result)) {
    problems.push(`calling the completed run again returned ${json(run.again)}`);
  }
  if (run.executedAgain > 0) {
    problems.push(`calling the completed run again executed ${run.executedAgain} step(s)`);
  }
  for (const record of [...run.history, ...run.lives.flatMap((life) => life.stored)]) {
    if (record.attempts > MAX_ATTEMPTS) problems.push(`${describeRecord(record)} > maxAttempts`);
  }
  return problems;
}

const count = (executions: Execution[], seq: number, attempt: number, life?: number): number =>
  executions.filter(
    (e) => e.seq === seq && e.attempt === attempt && (life === undefined || e.life === life),
  ).length;

/** Up to which attempt of step `seq` a life had stored when it crashed. */
function storedUpTo(life: Life, seq: number): number {
  const record = life.stored.find((r) => r.seq === seq);
  if (isStored(record)) return Infinity;
  return record?.status === 'retrying' ? record.attempts : 0;
}

/**
 * How often one attempt of a step may run, from the crash plan alone: a step outside any
 * `Promise.all` runs once, plus once more for each `afterEffect` crash at its recorded
 * attempt (no other crash point leaves it in flight). A group member may be in flight when
 * any member of its group crashes, at any point, since its siblings run concurrently: it
 * runs at most once plus once per crash that hit its group (once when none did).
 */
function plannedRuns(
  program: Program,
  step: StepOp,
  attempt: number,
  lives: Life[],
): { min: number; max: number } {
  const group = groupsOf(program).get(step.seq);
  if (group === undefined) {
    const redone = lives.filter((l) => l.point === 'afterEffect' && l.seq === step.seq).length;
    const exact = 1 + (attempt === finalAttempt(step) ? redone : 0);
    return { min: exact, max: exact };
  }
  return { min: 1, max: 1 + lives.filter((l) => group.includes(l.seq)).length };
}

/**
 * Step executions, per (seq, attempt): every attempt up to the recorded one ran, none after
 * it, at most once per life, as often as the crash plan allows ({@link plannedRuns}), and
 * exactly once plus once per life that ran it and crashed before storing it. A step stored
 * (completed or failed) by the end of a life never runs in a later life, and a failed
 * attempt stored for a retry is never run again.
 */
export function checkExecutions(
  program: Program,
  run: Recovered | Reference,
  lives: Life[],
): Problems {
  const problems: Problems = [];
  const { executions } = run;
  for (const step of stepsOf(program)) {
    const label = `${step.kind} #${step.seq}`;
    const last = finalAttempt(step);
    for (let attempt = 1; attempt <= MAX_ATTEMPTS + 1; attempt++) {
      const n = count(executions, step.seq, attempt);
      const what = `${label} attempt ${attempt} ran ${n}×`;
      if (attempt > last) {
        if (n > 0) problems.push(`${what}, past attempt ${last}`);
        continue;
      }
      for (let life = 0; life <= lives.length; life++) {
        const inLife = count(executions, step.seq, attempt, life);
        if (inLife > 1) problems.push(`${label} attempt ${attempt} ran ${inLife}× in life ${life}`);
      }
      const { min, max } = plannedRuns(program, step, attempt, lives);
      if (n < min || n > max) problems.push(`${what}, the crash plan allows ${min}..${max}`);
      const inFlight = lives.filter(
        (life, i) =>
          count(executions, step.seq, attempt, i) > 0 && attempt > storedUpTo(life, step.seq),
      ).length;
      if (n !== 1 + inFlight) problems.push(`${what}, but was in flight at ${inFlight} crash(es)`);
    }
    lives.forEach((life, i) => {
      const rerun = executions.filter(
        (e) => e.seq === step.seq && e.life > i && e.attempt <= storedUpTo(life, step.seq),
      );
      if (rerun.length > 0) {
        const record = life.stored.find((r) => r.seq === step.seq)!;
        problems.push(
          `${label}: stored as ${describeRecord(record)} when life ${i} crashed, yet ` +
            `${rerun.map((e) => `attempt ${e.attempt} ran in life ${e.life}`).join(', ')}`,
        );
      }
    });
  }
  for (const e of executions) {
    if (e.idempotencyKey !== `${e.runId}:${e.seq}`) {
      problems.push(`step #${e.seq} ran with idempotency key ${e.idempotencyKey}`);
    }
  }
  if ('logged' in run && run.logged !== executions.length) {
    problems.push(`the runtime counted ${run.logged} executions, the bodies ${executions.length}`);
  }
  return problems;
}

/**
 * `ctx.now()` / `ctx.uuid()`: once stored, or once a later step's body ran (which waits for
 * the value's write), every life sees the value the run ends with; a recorded instant is
 * the one the history shows.
 */
export function checkValues(program: Program, run: Recovered): Problems {
  const problems: Problems = [];
  for (const { op, index } of valueOps(program)) {
    const final = String(run.result[index]).slice(op.kind.length + 1);
    const label = `${op.kind} #${op.seq}`;
    run.lives.forEach((life, i) => {
      const seen = run.observations.find((o) => o.seq === op.seq && o.life === i)?.value;
      const stored = life.stored.some((r) => r.seq === op.seq);
      const later = run.executions.find((e) => e.life === i && e.seq > op.seq);
      if ((stored || later) && seen !== final) {
        problems.push(
          `${label} was ${seen ?? 'not seen'} in life ${i} ` +
            `(${stored ? 'stored' : `step #${later!.seq} ran after it`}), but ${final} in the end`,
        );
      }
    });
    if (op.kind === 'now') {
      const recorded = run.history.find((r) => r.seq === op.seq)?.finishedAt?.toISOString();
      if (recorded !== final) problems.push(`${label} returned ${final}, history has ${recorded}`);
    } else if (!/^[0-9a-f-]{36}$/.test(final)) {
      problems.push(`${label} returned ${final}, not a UUID`);
    }
  }
  return problems;
}
