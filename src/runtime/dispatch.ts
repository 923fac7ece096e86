import { installCallRouter } from '../decorators/callRouter';
import { NoRuntimeError } from '../errors/NoRuntimeError';
import { RunScope } from './execution/RunScope';
import { callWorkflowBody } from './execution/WorkflowCall';
import { RuntimeRegistry } from './RuntimeRegistry';

/** Calls `body` as an undecorated method would run; throws become rejections. */
function plainCall(body: () => unknown): Promise<unknown> {
  return new Promise((resolve) => resolve(body()));
}

/**
 * Where calls of decorated methods go. A `@Step` inside a run is a step of that run;
 * outside a run, or inside another step's body, a plain call. A `@Workflow` inside a run is
 * a child run; outside, the current runtime starts or resumes its run; inside a step's
 * body, a plain call.
 */
installCallRouter({
  step(instance, plan, original, args) {
    const body = (): unknown => original.apply(instance, args);
    const scope = RunScope.current();
    if (!scope || scope.step) return plainCall(body);
    return scope.operations.step(scope, { plan, args, body });
  },
  workflow(instance, plan, args) {
    const call = { instance, plan, args };
    const scope = RunScope.current();
    if (scope?.step) return plainCall(() => callWorkflowBody(call));
    if (scope) return scope.operations.child(scope, call);
    const entry = RuntimeRegistry.current();
    if (!entry) return Promise.reject(new NoRuntimeError(plan.name));
    return entry.callWorkflow(call);
  },
});
