import { validateSync, type ValidationError } from 'class-validator';
import { IdempotentOptionsSchema } from './IdempotentOptionsSchema';
import { RetryOptionsSchema } from './RetryOptionsSchema';
import { StepOptionsSchema } from './StepOptionsSchema';
import { WorkflowOptionsSchema } from './WorkflowOptionsSchema';

/** The class-validator schema of each decorator's options. */
export const optionSchemas = {
  step: StepOptionsSchema,
  workflow: WorkflowOptionsSchema,
  retry: RetryOptionsSchema,
  idempotent: IdempotentOptionsSchema,
};

/** Checks `candidate` against its schema; unknown keys are errors too. */
export function schemaErrors(candidate: object): ValidationError[] {
  return validateSync(candidate, {
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
    validationError: { target: false, value: true },
  });
}
