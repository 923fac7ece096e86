import type { WorkflowPlan } from '../../decorators/WorkflowPlan';

/** One call of a `@Workflow` method: its receiver, its compiled plan, its arguments. */
export interface WorkflowCall {
  readonly instance: object;
  readonly plan: WorkflowPlan;
  readonly args: unknown[];
}

/** Runs the workflow's body as written, on its receiver. */
export function callWorkflowBody(call: WorkflowCall): unknown {
  return call.plan.body.apply(call.instance, call.args);
}
