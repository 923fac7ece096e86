import type { AnyClass } from '../decorators/metadata';
import type { MethodPolicies } from '../decorators/metadata';

/** One call of a decorated method: the receiver, what was recorded for it, the arguments. */
export interface MethodCall {
  readonly instance: object;
  readonly declaringClass: AnyClass;
  readonly policies: MethodPolicies;
  readonly args: unknown[];
}
