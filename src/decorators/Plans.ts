import { qualifiedName, readClassPolicies, type AnyClass } from './metadata';
import { compileStepPlan, type StepPlan } from './StepPlan';
import { validateClassPolicies } from './validateClassPolicies';
import type { WorkflowPlan } from './WorkflowPlan';

/** A decorated method compiled: a workflow's or a step's plan. */
export type MethodPlan = WorkflowPlan | StepPlan;

const compiled = new WeakMap<AnyClass, Map<string, MethodPlan>>();

/**
 * Validates `Class`'s decorators together and compiles a plan for each decorated method it
 * declares, once: what `Waymark.create` does for every class loaded by then, so a
 * misconfiguration fails at start rather than at the first call. A class loaded later is
 * compiled at its first call the same way.
 */
export function compileClass(Class: AnyClass): ReadonlyMap<string, MethodPlan> {
  const existing = compiled.get(Class);
  if (existing) return existing;
  validateClassPolicies(Class);
  const plans = new Map<string, MethodPlan>();
  for (const policies of readClassPolicies(Class)) {
    const target = qualifiedName(policies);
    const { workflow, step } = policies;
    if (workflow) {
      plans.set(policies.methodName, {
        kind: 'workflow',
        name: workflow.name,
        version: workflow.version,
        id: workflow.id,
        queue: workflow.queue,
        timeoutMs: workflow.timeoutMs,
        retentionMs: workflow.retentionMs,
        declaringClass: Class,
        methodName: policies.methodName,
        target,
        body: policies.original,
      });
    } else if (step) {
      const plan = compileStepPlan(target, 'method', step, policies.retry, policies.idempotent);
      plans.set(policies.methodName, plan);
    }
  }
  compiled.set(Class, plans);
  return plans;
}

/** The plan of `Class.method`, declared on `Class` or a superclass. */
export function planOf(Class: AnyClass, methodName: string): MethodPlan | undefined {
  for (let cls: AnyClass | null = Class; cls && cls !== Function.prototype;) {
    if (readClassPolicies(cls).some((p) => p.methodName === methodName)) {
      return compileClass(cls).get(methodName);
    }
    cls = Object.getPrototypeOf(cls) as AnyClass | null;
  }
  return undefined;
}

/** The workflow plan of `Class.method`, or undefined when it is not a `@Workflow`. */
export function workflowPlanOf(Class: AnyClass, methodName: string): WorkflowPlan | undefined {
  const plan = planOf(Class, methodName);
  return plan?.kind === 'workflow' ? plan : undefined;
}
