import { callRouter } from './callRouter';
import type { AnyClass } from './metadata';
import { planFor, type MethodPlan } from './MethodPlan';

/**
 * Replaces a decorated method with a forwarder to the runtime's router. The forwarder holds
 * no behaviour of its own; it compiles the method's plan on the first call (every decorator
 * of the class has been applied by then) and reuses it.
 */
export function routeToInterceptor(
  declaringClass: AnyClass,
  methodName: string,
  descriptor: PropertyDescriptor,
  kind: 'workflow' | 'step',
): void {
  let plan: MethodPlan | undefined;
  const forwarder = function (this: object, ...args: unknown[]): Promise<unknown> {
    try {
      plan ??= planFor(declaringClass, methodName)!;
      return callRouter()[kind](this, plan, args);
    } catch (error) {
      // A decorated method is async: its misuse rejects, as its body's throws would.
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- rethrown as is
      return Promise.reject(error);
    }
  };
  Object.defineProperty(forwarder, 'name', { value: methodName });
  descriptor.value = forwarder;
}
