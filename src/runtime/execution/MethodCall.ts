import type { AnyClass, MethodPolicies } from '../../decorators/metadata';
import type { MethodPlan } from '../../decorators/MethodPlan';

/** One call of a decorated method: the receiver, what was recorded for it, the arguments. */
export interface MethodCall {
  readonly instance: object;
  readonly declaringClass: AnyClass;
  readonly policies: MethodPolicies;
  readonly args: unknown[];
  /** The method's compiled plan. */
  readonly plan: MethodPlan;
}

/** The call of `plan`'s method on `instance` with `args`. */
export function methodCall(instance: object, plan: MethodPlan, args: unknown[]): MethodCall {
  return { instance, declaringClass: plan.declaringClass, policies: plan.policies, args, plan };
}
