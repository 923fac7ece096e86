import type { AnyClass } from './metadata';
import { ConfigurationError } from '../errors/ConfigurationError';

/** Where a workflow name is declared. */
export interface WorkflowAddress {
  readonly target: AnyClass;
  readonly methodName: string;
}

const byName = new Map<string, WorkflowAddress>();

/**
 * Records that `target.methodName` is the workflow `name`. A class defined again under
 * the same class name (module reloading, a test that evolves a workflow's code) replaces
 * the earlier definition; two different classes claiming one name is a mistake.
 */
export function registerWorkflowName(name: string, address: WorkflowAddress): void {
  const existing = byName.get(name);
  if (
    existing &&
    existing.target !== address.target &&
    (existing.target.name !== address.target.name || existing.methodName !== address.methodName)
  ) {
    throw new ConfigurationError(
      `@Workflow on ${address.target.name}.${address.methodName}: the name "${name}" is already ` +
        `used by ${existing.target.name}.${existing.methodName}; give one of them another name`,
    );
  }
  byName.set(name, address);
}

/** The class and method declaring workflow `name`, if a loaded module declares it. */
export function findWorkflow(name: string): WorkflowAddress | undefined {
  return byName.get(name);
}

/** Every registered workflow name. */
export function workflowNames(): string[] {
  return [...byName.keys()];
}
