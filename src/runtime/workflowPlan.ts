import type { AnyClass } from '../decorators/metadata';
import { workflowPlanOf } from '../decorators/Plans';
import type { WorkflowPlan } from '../decorators/WorkflowPlan';
import { WorkflowNotRegisteredError } from '../errors/WorkflowNotRegisteredError';

/** The plan of `Class.method`, which must be a `@Workflow`. */
export function workflowPlan(Class: AnyClass, method: string): WorkflowPlan {
  const plan = workflowPlanOf(Class, method);
  if (!plan) {
    throw new WorkflowNotRegisteredError(
      `${Class.name}.${method}`,
      'the method is not decorated with @Workflow',
    );
  }
  return plan;
}
