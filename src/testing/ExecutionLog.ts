import type { StepHookPoint } from '../model/StepHooks';

/** Counts how many times each step body executed, across a test runtime's restarts. */
export class ExecutionLog {
  private readonly entries: StepHookPoint[] = [];

  /** @internal */
  record(point: StepHookPoint): void {
    this.entries.push(point);
  }

  /** Executions of a step, by `'Class.method'` or step name, optionally of one run. */
  count(step: string, runId?: string): number {
    return this.entries.filter(
      (e) => (e.target === step || e.step === step) && (runId === undefined || e.runId === runId),
    ).length;
  }

  /** Every execution, in order. */
  all(): readonly StepHookPoint[] {
    return this.entries;
  }
}
