export * from './Workflow';
export * from './Step';
export * from './Retry';
export * from './Idempotent';
export { validateClassPolicies } from './validateClassPolicies';
export { findWorkflow, workflowNames } from './WorkflowRegistry';
export type { InlineStepOptions } from './inlineStepPlan';
