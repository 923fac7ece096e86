import type { AnyClass } from './metadata';
import { dispatchStep, dispatchWorkflow } from '../runtime/dispatch';

/**
 * Replaces a decorated method with a forwarder to the interceptor. The forwarder holds no
 * behaviour of its own: which runtime runs the call and how is decided at call time.
 */
export function routeToInterceptor(
  declaringClass: AnyClass,
  methodName: string,
  descriptor: PropertyDescriptor,
  kind: 'workflow' | 'step',
): void {
  const dispatch = kind === 'workflow' ? dispatchWorkflow : dispatchStep;
  const forwarder = function (this: object, ...args: unknown[]): Promise<unknown> {
    return dispatch(this, declaringClass, methodName, args);
  };
  Object.defineProperty(forwarder, 'name', { value: methodName });
  descriptor.value = forwarder;
}
