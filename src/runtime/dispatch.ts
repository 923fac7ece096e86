import type { AnyClass } from '../decorators/metadata';
import { readMethodPolicies, type MethodPolicies } from '../decorators/metadata';
import { NoRuntimeError } from '../errors/NoRuntimeError';
import { RunScope } from './RunScope';
import { RuntimeRegistry } from './RuntimeRegistry';
import type { MethodCall } from './WorkflowCall';

function callOf(
  instance: object,
  declaringClass: AnyClass,
  methodName: string,
  args: unknown[],
): MethodCall {
  const policies = readMethodPolicies(declaringClass, methodName) as MethodPolicies;
  return { instance, declaringClass, policies, args };
}

/** Calls the body synchronously, as an undecorated method would run; throws become rejections. */
function plainCall(call: MethodCall): Promise<unknown> {
  return new Promise((resolve) => resolve(call.policies.original.apply(call.instance, call.args)));
}

/**
 * Where a `@Step` call goes: to the interceptor of the run it is made in; outside a run,
 * or inside another step's body, it is a plain call.
 */
export function dispatchStep(
  instance: object,
  declaringClass: AnyClass,
  methodName: string,
  args: unknown[],
): Promise<unknown> {
  const call = callOf(instance, declaringClass, methodName, args);
  const scope = RunScope.current();
  if (!scope || scope.step) return plainCall(call);
  return scope.kernel.interceptor.interceptStep(scope, call);
}

/**
 * Where a `@Workflow` call goes: inside a run it is a child run; outside, the current
 * runtime starts or resumes it. Inside a step's body it is a plain call.
 */
export function dispatchWorkflow(
  instance: object,
  declaringClass: AnyClass,
  methodName: string,
  args: unknown[],
): Promise<unknown> {
  const call = callOf(instance, declaringClass, methodName, args);
  const scope = RunScope.current();
  if (scope?.step) return plainCall(call);
  if (scope) return scope.kernel.interceptor.interceptChildWorkflow(scope, call);
  const kernel = RuntimeRegistry.current();
  if (!kernel) return Promise.reject(new NoRuntimeError(call.policies.workflow!.name));
  return kernel.interceptor.interceptWorkflow(call);
}
