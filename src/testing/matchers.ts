import type { RunHandle } from '../runtime/RunHandle';
import type { RunStatus } from '../model/RunStatus';
import type { CrashMatrixReport } from './crashMatrix';
import type { EffectLedger } from './EffectLedger';
import type { TestRuntime } from './TestRuntime';

/** What each of {@link waymarkMatchers} returns, as `expect.extend()` wants it. */
export interface MatcherResult {
  pass: boolean;
  message: () => string;
}

const isValueRecord = (name: string): boolean => name.startsWith('ctx.');

/**
 * Jest matchers for runs. Registered automatically when `waymark/testing` is imported in
 * a jest test; or pass them to `expect.extend()` yourself. The run matchers are async:
 * `await expect(handle).toHaveCompletedSteps([...])`.
 */
export const waymarkMatchers = {
  /** The run's completed steps, in order, are exactly `names` (recorded `ctx.*` values aside). */
  async toHaveCompletedSteps(received: RunHandle, names: string[]): Promise<MatcherResult> {
    const history = await received.history();
    const completed = history
      .filter((s) => s.status === 'completed' && !isValueRecord(s.name))
      .map((s) => s.name);
    const pass = JSON.stringify(completed) === JSON.stringify(names);
    return {
      pass,
      message: () =>
        `expected run "${received.runId}" ${pass ? 'not ' : ''}to have completed steps ` +
        `${JSON.stringify(names)}, it has ${JSON.stringify(completed)}`,
    };
  },

  /** The run's stored status is `status`. */
  async toHaveRunStatus(received: RunHandle, status: RunStatus): Promise<MatcherResult> {
    const actual = await received.status();
    const pass = actual === status;
    return {
      pass,
      message: () =>
        `expected run "${received.runId}" ${pass ? 'not ' : ''}to be ${status}, it is ${actual}`,
    };
  },

  /** A {@link crashMatrix} report in which every crash case ended as the uninterrupted run did. */
  toSurviveEveryCrash(received: CrashMatrixReport): MatcherResult {
    const pass = received.failures.length === 0 && received.cases.length > 0;
    return {
      pass,
      message: () =>
        pass
          ? `expected some crash case to differ, all ${received.cases.length} matched`
          : received.cases.length === 0
            ? 'the crash matrix ran no case: the workflow executed no step'
            : `${received.failures.length} of ${received.cases.length} crash cases differ from the uninterrupted run:\n${received.summary()}`,
    };
  },

  /** The ledger recorded the effect `key` exactly once (async). */
  async toHaveEffectOnce(received: EffectLedger, key: string): Promise<MatcherResult> {
    const count = await received.count(key);
    const pass = count === 1;
    return {
      pass,
      message: () =>
        `expected effect "${key}" ${pass ? 'not ' : ''}to have happened once, it happened ${count} time(s)`,
    };
  },

  /** The step's body executed exactly `times` times on this test runtime and its restarts. */
  toHaveExecutedStepTimes(received: TestRuntime, step: string, times: number): MatcherResult {
    const actual = received.executions.count(step);
    const pass = actual === times;
    return {
      pass,
      message: () =>
        `expected step ${step} ${pass ? 'not ' : ''}to have executed ${times} time(s), it executed ${actual}`,
    };
  },
};

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace jest {
    interface Matchers<R> {
      /** See {@link waymarkMatchers.toHaveCompletedSteps}; await it. */
      toHaveCompletedSteps(names: string[]): Promise<R>;
      /** See {@link waymarkMatchers.toHaveRunStatus}; await it. */
      toHaveRunStatus(status: RunStatus): Promise<R>;
      /** See {@link waymarkMatchers.toSurviveEveryCrash}; use on `expect(crashMatrix(…)).resolves`. */
      toSurviveEveryCrash(): R;
      /** See {@link waymarkMatchers.toHaveEffectOnce}; await it. */
      toHaveEffectOnce(key: string): Promise<R>;
      /** See {@link waymarkMatchers.toHaveExecutedStepTimes}. */
      toHaveExecutedStepTimes(step: string, times: number): R;
    }
  }
}

/** Registers {@link waymarkMatchers} with jest's global `expect`, when there is one. */
export function installMatchers(): void {
  const expectGlobal = (globalThis as { expect?: { extend(matchers: object): void } }).expect;
  expectGlobal?.extend(waymarkMatchers);
}
