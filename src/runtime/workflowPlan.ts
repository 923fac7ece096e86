import type { AnyClass } from '../decorators/metadata';
import { planFor, type MethodPlan } from '../decorators/MethodPlan';
import { WorkflowNotRegisteredError } from '../errors/WorkflowNotRegisteredError';

/** The plan of `Class.method`, which must be a `@Workflow`. */
export function workflowPlan(Class: AnyClass, method: string): MethodPlan {
  const plan = planFor(Class, method);
  if (!plan?.workflow) {
    throw new WorkflowNotRegisteredError(
      `${Class.name}.${method}`,
      'the method is not decorated with @Workflow',
    );
  }
  return plan;
}
