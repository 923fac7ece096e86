import { callRouter } from './callRouter';
import type { AnyClass } from './metadata';
import { planOf, type MethodPlan } from './Plans';

/**
 * Replaces a decorated method with a forwarder to the runtime's router. The forwarder holds
 * no behaviour of its own; its plan was compiled when the class was registered (or, for a
 * class loaded after `Waymark.create`, at its first call, once every decorator of the class
 * has been applied) and is reused.
 */
export function routeToInterceptor(
  declaringClass: AnyClass,
  methodName: string,
  descriptor: PropertyDescriptor,
  original: (...args: unknown[]) => unknown,
): void {
  let plan: MethodPlan | undefined;
  const forwarder = function (this: object, ...args: unknown[]): Promise<unknown> {
    try {
      plan ??= planOf(declaringClass, methodName)!;
      return plan.kind === 'workflow'
        ? callRouter().workflow(this, plan, args)
        : callRouter().step(this, plan, original, args);
    } catch (error) {
      // A decorated method is async: its misuse rejects, as its body's throws would.
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- rethrown as is
      return Promise.reject(error);
    }
  };
  Object.defineProperty(forwarder, 'name', { value: methodName });
  descriptor.value = forwarder;
}
