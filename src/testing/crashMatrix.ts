import { isDeepStrictEqual } from 'node:util';
import { container as rootContainer, type DependencyContainer } from 'tsyringe';
import { SimulatedCrash } from '../errors/SimulatedCrash';
import type { AsyncMethodOf } from '../runtime/WaymarkRuntime';
import type { StepRecord } from '../store/RunQueries';
import type { CrashPoint } from './CrashPlan';
import { createTestRuntime, type TestRuntimeOptions } from './createTestRuntime';
import type { TestRuntime } from './TestRuntime';

/** Options of {@link crashMatrix}. */
export interface CrashMatrixOptions {
  /** Registers fresh fakes (LLM, gateway, mailer…) in the container of each case. */
  setup?: (container: DependencyContainer) => unknown;
  /** Counts of external effects after a case (read from your fakes or an `EffectLedger`). */
  effects?: (
    container: DependencyContainer,
  ) => Record<string, number> | Promise<Record<string, number>>;
  /** Maps a result to what must be equal (drop values that differ by design, like uuids). */
  normalize?: (result: unknown) => unknown;
  /** Hook points to crash at; default all three. */
  points?: CrashPoint[];
  /** Test runtime options of each case (a fresh in-memory database unless `database` is given). */
  runtime?: Omit<TestRuntimeOptions, 'container' | 'clock'>;
  /** Restarts allowed after the crash before a case counts as stuck; default 3. */
  maxRestarts?: number;
}

/** What one run looked like: its result (or error), its step history, its effects. */
export interface CrashObservation {
  readonly outcome: { ok: true; value: unknown } | { ok: false; error: string };
  readonly steps: ReadonlyArray<{ seq: number; name: string; status: string }>;
  readonly effects: Record<string, number>;
}

/** One crash case: where it crashed, what came out, and how that differs from the reference. */
export interface CrashCase extends CrashObservation {
  readonly target: string;
  readonly seq: number;
  readonly point: CrashPoint;
  readonly differences: readonly string[];
}

/** Every crash case of a workflow call, against its uninterrupted reference. */
export interface CrashMatrixReport {
  readonly reference: CrashObservation;
  readonly cases: readonly CrashCase[];
  readonly failures: readonly CrashCase[];
  /** One line per failing case, for test output. */
  summary(): string;
}

/**
 * Crashes a workflow at every step it executes, at every hook point (before the body, after
 * its effect but before its checkpoint, after its checkpoint), restarts, finishes the run,
 * and compares result, step history and effect counts with an uninterrupted run. Time runs
 * on a fake clock that jumps to each next timer.
 *
 * @example
 * ```ts
 * await expect(crashMatrix(ResearchAgent, 'research', ['durable execution'], { setup })).resolves.toSurviveEveryCrash();
 * ```
 */
export async function crashMatrix<C extends object, K extends AsyncMethodOf<C>>(
  Class: new (...deps: any[]) => C,
  method: K,
  args: C[K] extends (...a: infer A) => unknown ? A : never,
  options: CrashMatrixOptions = {},
): Promise<CrashMatrixReport> {
  const points = options.points ?? ['before', 'afterEffect', 'afterCommit'];
  const start = async (): Promise<{ runtime: TestRuntime; container: DependencyContainer }> => {
    const container = rootContainer.createChildContainer();
    await options.setup?.(container);
    const runtime = await createTestRuntime({ ...options.runtime, container, clock: 'fake' });
    return { runtime, container };
  };
  const call = (runtime: TestRuntime) =>
    runtime.clock.drive(runtime.start(Class, method, args).then((h) => h.result().then(() => h)));

  const ref = await start();
  let reference: CrashObservation;
  let executed: Array<{ target: string; seq: number }>;
  try {
    const runId = await runIdOf(ref.runtime, call);
    reference = await observe(ref.runtime, ref.container, runId, options);
    executed = dedupe(ref.runtime.executions.all().map((e) => ({ target: e.target, seq: e.seq })));
  } finally {
    await ref.runtime.close();
  }

  const cases: CrashCase[] = [];
  for (const { target, seq } of executed) {
    for (const point of points) {
      const started = await start();
      const { container } = started;
      let { runtime } = started;
      try {
        runtime.crash[point](target, { seq });
        let runId: string | undefined;
        for (
          let restarts = 0;
          runId === undefined && restarts <= (options.maxRestarts ?? 3);
          restarts++
        ) {
          runId = await runIdOf(runtime, call).catch((error: unknown) => {
            if (!(error instanceof SimulatedCrash)) throw error;
            return undefined;
          });
          if (runId === undefined) runtime = await runtime.restart();
        }
        const observed = runId
          ? await observe(runtime, container, runId, options)
          : {
              outcome: { ok: false as const, error: 'did not finish after restarts' },
              steps: [],
              effects: {},
            };
        cases.push({
          target,
          seq,
          point,
          ...observed,
          differences: compare(reference, observed, options),
        });
      } finally {
        await runtime.close();
      }
    }
  }
  const failures = cases.filter((c) => c.differences.length > 0);
  return {
    reference,
    cases,
    failures,
    summary: () =>
      failures
        .map((c) => `${c.point} ${c.target} #${c.seq}: ${c.differences.join('; ')}`)
        .join('\n') || `all ${cases.length} crash cases ended as the uninterrupted run did`,
  };
}

/** Runs the call to its end and returns the run id (a failed run's error is part of its observation). */
async function runIdOf(
  runtime: TestRuntime,
  call: (r: TestRuntime) => Promise<{ runId: string }>,
): Promise<string> {
  try {
    return (await call(runtime)).runId;
  } catch (error) {
    if (error instanceof SimulatedCrash) throw error;
    const failed = await runtime.list({ status: ['failed', 'needs_attention'], limit: 1 });
    const run = failed.runs[0];
    if (!run) throw error;
    return run.runId;
  }
}

async function observe(
  runtime: TestRuntime,
  container: DependencyContainer,
  runId: string,
  options: CrashMatrixOptions,
): Promise<CrashObservation> {
  let outcome: CrashObservation['outcome'];
  try {
    const value = await runtime.handle(runId).result();
    outcome = { ok: true, value: options.normalize ? options.normalize(value) : value };
  } catch (error) {
    outcome = { ok: false, error: `${(error as Error).name}: ${(error as Error).message}` };
  }
  const history: StepRecord[] = await runtime.history(runId);
  return {
    outcome,
    steps: history.map((s) => ({ seq: s.seq, name: s.name, status: s.status })),
    effects: (await options.effects?.(container)) ?? {},
  };
}

function compare(
  reference: CrashObservation,
  observed: CrashObservation,
  _options: CrashMatrixOptions,
): string[] {
  const differences: string[] = [];
  if (!isDeepStrictEqual(reference.outcome, observed.outcome)) {
    differences.push(
      `result ${JSON.stringify(observed.outcome)} instead of ${JSON.stringify(reference.outcome)}`,
    );
  }
  if (!isDeepStrictEqual(reference.steps, observed.steps)) {
    differences.push(
      `steps ${describeSteps(observed.steps)} instead of ${describeSteps(reference.steps)}`,
    );
  }
  for (const key of new Set([
    ...Object.keys(reference.effects),
    ...Object.keys(observed.effects),
  ])) {
    if ((reference.effects[key] ?? 0) !== (observed.effects[key] ?? 0)) {
      differences.push(
        `effect "${key}" ${observed.effects[key] ?? 0}× instead of ${reference.effects[key] ?? 0}×`,
      );
    }
  }
  return differences;
}

function describeSteps(steps: CrashObservation['steps']): string {
  return `[${steps.map((s) => `${s.seq}:${s.name}:${s.status}`).join(', ')}]`;
}

function dedupe<T>(items: T[]): T[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const key = JSON.stringify(item);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
