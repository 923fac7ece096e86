import { container as rootContainer, type DependencyContainer } from 'tsyringe';
import { ConfigurationError } from '../errors/ConfigurationError';
import { storedOutcomeOf } from '../errors/storedOutcomeNote';
import type { Constructor } from '../model/Constructor';
import type { AsyncMethodOf } from '../runtime/WaymarkRuntime';
import { compareCrashObservations, type CrashObservation } from './compareCrashObservations';
import type { CrashPoint } from './CrashPlan';
import { CrashSignals, type CrashMatrixSignal } from './CrashSignals';
import { createTestRuntime, type TestRuntimeOptions } from './createTestRuntime';
import { driveRun, type MatrixCall } from './driveRun';
import { freshDatabases, type CrashMatrixDatabase } from './freshDatabases';
import type { TestRuntime } from './TestRuntime';

export type { CrashObservation } from './compareCrashObservations';
export type { CrashMatrixSignal } from './CrashSignals';
export type { CrashMatrixDatabase } from './freshDatabases';

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
  /** Signals to send to the run, in every case as in the uninterrupted run. */
  signals?: CrashMatrixSignal[];
  /**
   * The uninterrupted run is expected to fail, with an error whose `Name: message` contains
   * this string or matches this pattern. Without it, a failing uninterrupted run rejects the
   * matrix: crashes compared with a run that timed out prove nothing.
   */
  expectError?: string | RegExp;
  /** Test runtime options of each case; `database` must be fresh per case (see {@link CrashMatrixDatabase}). */
  runtime?: Omit<TestRuntimeOptions, 'container' | 'clock' | 'database'> & {
    database?: CrashMatrixDatabase;
  };
  /** Restarts allowed after the crash before a case counts as stuck; default 3. */
  maxRestarts?: number;
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
 * its effect but before its checkpoint, after its checkpoint), restarts, resumes the run by
 * its id, and compares result, step history and effect counts with an uninterrupted run.
 * Time runs on a fake clock that jumps to each next timer; `signals` are sent when the run
 * waits for them. Every case runs on a database of its own. A case that executed nothing,
 * whose crash never happened or whose signals were never sent fails.
 *
 * @example
 * ```ts
 * await expect(
 *   crashMatrix(ProcurementAgent, 'procure', [request], {
 *     setup,
 *     signals: [{ name: 'approval', payload: { approved: true } }],
 *   }),
 * ).resolves.toSurviveEveryCrash();
 * ```
 */
export async function crashMatrix<C extends object, K extends AsyncMethodOf<C>>(
  Class: Constructor<C>,
  method: K,
  args: C[K] extends (...a: infer A) => unknown ? A : never,
  options: CrashMatrixOptions = {},
): Promise<CrashMatrixReport> {
  const where = `crashMatrix(${Class.name}.${method})`;
  const call: MatrixCall = { Class, method: method as never, args: args };
  const points = options.points ?? ['before', 'afterEffect', 'afterCommit'];
  const { database, ...runtimeOptions } = options.runtime ?? {};
  const fresh = freshDatabases(database, where);
  const start = async (): Promise<{ runtime: TestRuntime; container: DependencyContainer }> => {
    const container = rootContainer.createChildContainer();
    await options.setup?.(container);
    const caseDatabase = await fresh();
    const runtime = await createTestRuntime({
      ...runtimeOptions,
      ...(caseDatabase === undefined ? {} : { database: caseDatabase }),
      container,
      clock: 'fake',
    });
    return { runtime, container };
  };

  const ref = await start();
  let reference: CrashObservation;
  let executed: Array<{ target: string; seq: number }>;
  try {
    const signals = new CrashSignals(options.signals ?? []);
    const attempt = await driveRun(ref.runtime, call, undefined, signals);
    if (attempt.kind === 'stuck') {
      throw new ConfigurationError(
        `${where}: the uninterrupted run waits for ${attempt.waitingFor} with no deadline; ` +
          `send it: signals: [{ name: '${attempt.waitingFor.replace(/^signal:/, '')}', payload }]`,
      );
    }
    if (attempt.runId === undefined) throw new ConfigurationError(`${where}: no run started`);
    reference = await observe(ref.runtime, ref.container, attempt.runId, options);
    executed = dedupe(ref.runtime.executions.all().map((e) => ({ target: e.target, seq: e.seq })));
    checkReference(where, reference, executed.length, signals.unsent, options.expectError);
  } finally {
    await ref.runtime.close();
  }

  const cases: CrashCase[] = [];
  for (const { target, seq } of executed) {
    for (const point of points) {
      cases.push(await crashCase(start, call, reference, { target, seq, point }, options));
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

/** One case: crash at `at`, restart and resume by run id until the run ends, then compare. */
async function crashCase(
  start: () => Promise<{ runtime: TestRuntime; container: DependencyContainer }>,
  call: MatrixCall,
  reference: CrashObservation,
  at: { target: string; seq: number; point: CrashPoint },
  options: CrashMatrixOptions,
): Promise<CrashCase> {
  const started = await start();
  let { runtime } = started;
  const signals = new CrashSignals(options.signals ?? []);
  try {
    runtime.crash[at.point](at.target, { seq: at.seq });
    let runId: string | undefined;
    let ended = false;
    let unfinished = `did not finish after ${options.maxRestarts ?? 3} restarts`;
    for (let restarts = 0; !ended && restarts <= (options.maxRestarts ?? 3); restarts++) {
      const attempt = await driveRun(runtime, call, runId, signals);
      runId = attempt.runId ?? runId;
      if (attempt.kind === 'crashed') runtime = await runtime.restart();
      else if (attempt.kind === 'ended') ended = true;
      else {
        unfinished = `waits for ${attempt.waitingFor} with no deadline and no signal left to send`;
        break;
      }
    }
    const observed =
      ended && runId !== undefined
        ? await observe(runtime, started.container, runId, options)
        : { outcome: { ok: false as const, error: unfinished }, steps: [], effects: {} };
    const differences = compareCrashObservations(reference, observed);
    if (runtime.executions.all().length === 0) {
      differences.push('executed no step: the run was already finished in its database');
    }
    if (runtime.crash.pending > 0) {
      differences.push(`the crash never happened: no ${at.point} ${at.target} #${at.seq}`);
    }
    if (signals.unsent.length > 0) {
      differences.push(`signal(s) never sent: ${signals.unsent.join(', ')}`);
    }
    return { ...at, ...observed, differences };
  } finally {
    await runtime.close();
  }
}

function checkReference(
  where: string,
  reference: CrashObservation,
  executedSteps: number,
  unsent: string[],
  expectError: string | RegExp | undefined,
): void {
  const { outcome } = reference;
  if (unsent.length > 0) {
    throw new ConfigurationError(
      `${where}: the uninterrupted run ended without the signal(s) ${unsent.join(', ')} being ` +
        'sent: it never waited while they were due',
    );
  }
  if (!outcome.ok && expectError === undefined) {
    throw new ConfigurationError(
      `${where}: the uninterrupted run failed (${outcome.error}), so crashes compared with it ` +
        'prove nothing. Send what it waits for (signals: [{ name, payload }]), or pass ' +
        'expectError if failing is what it should do',
    );
  }
  if (expectError !== undefined) {
    const matches =
      !outcome.ok &&
      (typeof expectError === 'string'
        ? outcome.error.includes(expectError)
        : expectError.test(outcome.error));
    if (!matches) {
      throw new ConfigurationError(
        `${where}: expected the uninterrupted run to fail with ${String(expectError)}, but it ` +
          (outcome.ok
            ? `returned ${JSON.stringify(outcome.value)}`
            : `failed with ${outcome.error}`),
      );
    }
  }
  if (executedSteps === 0) {
    throw new ConfigurationError(
      `${where}: the uninterrupted run executed no step, so there is nothing to crash`,
    );
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
  } catch (thrown) {
    // As stored: the line a re-throw carries names this run and when, which runs differ in.
    const error = (storedOutcomeOf(thrown)?.error ?? thrown) as Error;
    outcome = { ok: false, error: `${error.name}: ${error.message}` };
  }
  const history = await runtime.history(runId);
  return {
    outcome,
    steps: history.map((s) => ({ seq: s.seq, name: s.name, status: s.status })),
    effects: (await options.effects?.(container)) ?? {},
  };
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
