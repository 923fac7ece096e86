import {
  readClassPolicies,
  readDecoratedClasses,
  type AnyClass,
  type MethodPolicies,
} from '../decorators/metadata';
import { compileClass } from '../decorators/Plans';
import { workflowNames } from '../decorators/WorkflowRegistry';

export type { AnyClass, MethodPolicies };

/**
 * The workflows and steps the modules loaded in this process declare, as operator tools
 * (`waymark check`, `waymark worker`) inspect them: without reaching into the decorators'
 * metadata themselves.
 */
export const WorkflowCatalog = {
  /** Every class with waymark decorators, in the order they were declared. */
  classes(): readonly AnyClass[] {
    return readDecoratedClasses();
  },
  /** The policies of each decorated method of `Class`. */
  policiesOf(Class: AnyClass): readonly MethodPolicies[] {
    return readClassPolicies(Class);
  },
  /** Throws `ConfigurationError` listing every misconfiguration of `Class`'s policies. */
  validate(Class: AnyClass): void {
    compileClass(Class);
  },
  /** The names of the workflows declared. */
  workflowNames(): string[] {
    return workflowNames();
  },
} as const;
