import { brand, hasBrand } from './brand';
import { WaymarkError } from './WaymarkError';

/**
 * A run names a workflow that no loaded class declares, or a method that is not a
 * `@Workflow`. Import the module that defines it before resuming.
 */
export class WorkflowNotRegisteredError extends WaymarkError {
  declare readonly code: 'WORKFLOW_NOT_REGISTERED';

  constructor(
    readonly workflow: string,
    detail = 'no loaded class declares it; import the module that defines it',
  ) {
    super('WORKFLOW_NOT_REGISTERED', `workflow "${workflow}" is not registered: ${detail}`);
  }
}

brand(WorkflowNotRegisteredError, 'WorkflowNotRegisteredError');

/** True when `error` is a {@link WorkflowNotRegisteredError}. */
export function isWorkflowNotRegisteredError(error: unknown): error is WorkflowNotRegisteredError {
  return hasBrand(error, 'WorkflowNotRegisteredError');
}
