export * from './Workflow';
export * from './Step';
export { validateClassPolicies } from './validateClassPolicies';
export { findWorkflow, workflowNames } from './WorkflowRegistry';
