import { installCallRouter } from '../decorators/callRouter';
import type { MethodPlan } from '../decorators/MethodPlan';
import { NoRuntimeError } from '../errors/NoRuntimeError';
import { methodCall, type MethodCall } from './execution/MethodCall';
import { RunScope } from './execution/RunScope';
import { RuntimeRegistry } from './RuntimeRegistry';

/** Calls the body as an undecorated method would run; throws become rejections. */
function plainCall(call: MethodCall): Promise<unknown> {
  return new Promise((resolve) => resolve(call.policies.original.apply(call.instance, call.args)));
}

/**
 * Where calls of decorated methods go. A `@Step` inside a run is a step of that run;
 * outside a run, or inside another step's body, a plain call. A `@Workflow` inside a run is
 * a child run; outside, the current runtime starts or resumes its run; inside a step's
 * body, a plain call.
 */
installCallRouter({
  step(instance: object, plan: MethodPlan, args: unknown[]): Promise<unknown> {
    const call = methodCall(instance, plan, args);
    const scope = RunScope.current();
    if (!scope || scope.step) return plainCall(call);
    return scope.operations.step(scope, call);
  },
  workflow(instance: object, plan: MethodPlan, args: unknown[]): Promise<unknown> {
    const call = methodCall(instance, plan, args);
    const scope = RunScope.current();
    if (scope?.step) return plainCall(call);
    if (scope) return scope.operations.child(scope, call);
    const entry = RuntimeRegistry.current();
    if (!entry) return Promise.reject(new NoRuntimeError(plan.workflow!.name));
    return entry.callWorkflow(call);
  },
});
