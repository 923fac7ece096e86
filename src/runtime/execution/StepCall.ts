import type { StepPlan } from '../../decorators/StepPlan';

/** One call of a step — a `@Step` method or an inline step — and the body it runs. */
export interface StepCall {
  readonly plan: StepPlan;
  /** What the step's key function (`@Idempotent({ key })`) reads. */
  readonly args: readonly unknown[];
  /** Runs one attempt of the body (inside the step's scope, set by the caller). */
  readonly body: () => unknown;
}
